#include "tessera/core/signals.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera::signals {

namespace {
volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_count = 0;

extern "C" void on_signal(int sig) {
  g_count = g_count + 1;
  if (g_count >= 2) {
    // Second signal: leave at once. Checkpoints are written to a temporary name and renamed, so the last
    // good one is untouched whatever the writer was doing.
    const char msg[] = "tessera: second signal, aborting now (last good checkpoint kept)\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(128 + sig);
  }
  g_signal = sig;
  const char msg[] = "tessera: stop requested: finishing the step, writing a checkpoint, then exiting\n";
  (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
}
}  // namespace

void install() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int s : {SIGTERM, SIGINT, SIGUSR1}) sigaction(s, &sa, nullptr);
}

bool stop_requested() { return g_signal != 0; }
int stop_signal() { return int(g_signal); }
void reset() {
  g_signal = 0;
  g_count = 0;
}

bool should_stop(MPI_Comm comm, const Deadline* deadline) { return should_stop(comm, deadline && deadline->passed()); }

bool should_stop(MPI_Comm comm, bool local_condition) {
  int local = stop_requested() || local_condition ? 1 : 0;
  int any = local;
  int inited = 0;
  MPI_Initialized(&inited);
  if (inited) MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, comm);
  return any != 0;
}

Deadline::Deadline(double limit_seconds, double margin_seconds) : limit_(limit_seconds), margin_(margin_seconds) {}
bool Deadline::passed() const { return active() && remaining_seconds() <= 0; }
double Deadline::remaining_seconds() const {
  if (!active()) return 1e300;
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  return limit_ - margin_ - el;
}

double parse_duration(const std::string& s) {
  auto bad = [&]() -> double {
    TESSERA_THROW("invalid duration '" + s + "': use HH:MM:SS, MM:SS, or a number with s, m or h (e.g. 90m)");
  };
  if (s.empty()) return bad();
  if (s.find(':') != std::string::npos) {
    double total = 0;
    std::size_t pos = 0;
    int parts = 0;
    while (pos <= s.size()) {
      const std::size_t c = s.find(':', pos);
      const std::string p = s.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
      if (p.empty() || p.find_first_not_of("0123456789.") != std::string::npos) return bad();
      total = total * 60 + std::stod(p);
      ++parts;
      if (c == std::string::npos) break;
      pos = c + 1;
    }
    if (parts > 3) return bad();
    return total;
  }
  double mult = 1;
  std::string num = s;
  switch (s.back()) {
    case 's': num.pop_back(); break;
    case 'm': mult = 60; num.pop_back(); break;
    case 'h': mult = 3600; num.pop_back(); break;
    default: break;
  }
  if (num.empty() || num.find_first_not_of("0123456789.") != std::string::npos) return bad();
  const double v = std::stod(num) * mult;
  if (!(v > 0)) return bad();
  return v;
}

}  // namespace tessera::signals
