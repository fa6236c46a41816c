#include "tessera/core/manifest.hpp"

#include <unistd.h>

#include <ctime>
#include <filesystem>

#include "tessera/core/device.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/telemetry.hpp"
#include "tessera/core/version.hpp"

namespace tessera {

nlohmann::json base_manifest(const Runtime& rt, int argc, char** argv) {
  nlohmann::json j;
  j["tessera_version"] = version();
  j["git_hash"] = git_hash();
  j["build"] = build_config();
  std::string cmd;
  for (int i = 0; i < argc; ++i) {
    if (i) cmd += ' ';
    cmd += argv[i];
  }
  j["command_line"] = cmd;
  const std::time_t t = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  j["start_time"] = date;
  j["ranks"] = rt.size();
  j["device"] = exec::to_string(rt.space());
  // Each rank's binding, gathered as text (one line per rank).
  const std::string rep = rt.binding_report();
  nlohmann::json lines = nlohmann::json::array();
  std::size_t pos = 0;
  while (pos < rep.size()) {
    const std::size_t e = rep.find('\n', pos);
    lines.push_back(rep.substr(pos, e - pos));
    if (e == std::string::npos) break;
    pos = e + 1;
  }
  j["rank_bindings"] = lines;
  if (rt.space() == exec::Space::Device) {
    const auto inf = device::info(rt.device_id());
    j["gpu"] = {{"name", inf.name},
                {"memory_bytes", inf.total_bytes},
                {"driver_version", inf.driver_version},
                {"runtime_version", inf.runtime_version},
                {"compute_capability", std::to_string(inf.cc_major) + "." + std::to_string(inf.cc_minor)}};
  }
  return j;
}

void write_manifest(const Runtime& rt, const std::string& dir, const nlohmann::json& manifest) {
  if (rt.rank() != 0) return;
  telemetry::write_file_atomic((std::filesystem::path(dir) / "run.json").string(), manifest.dump(2) + "\n");
}

}  // namespace tessera
