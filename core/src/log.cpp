#include "tessera/core/log.hpp"

#include <cstdio>
#include <mutex>

namespace tessera::log {

namespace {
Level g_level = Level::Info;
int g_rank = 0;
std::mutex g_mutex;
}  // namespace

void set_level(Level l) { g_level = l; }
Level level() { return g_level; }
void set_rank(int r) { g_rank = r; }

void write(Level l, const std::string& msg) {
  if (l < g_level) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (l >= Level::Warn) {
    std::fprintf(stderr, "[rank %d] %s: %s\n", g_rank, l == Level::Warn ? "warning" : "error", msg.c_str());
    std::fflush(stderr);
  } else if (g_rank == 0) {
    std::fprintf(stdout, "%s\n", msg.c_str());
    std::fflush(stdout);
  }
}

}  // namespace tessera::log
