// The run manifest: a JSON record beside the outputs (run.json) with version, git hash, build, command
// line, ranks, devices, the resolved case, timings per phase, throughput, energy and exit status.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace tessera {
class Runtime;

// Version, commit, build, host, start time, ranks and every rank's device (collective over the runtime's
// communicator: all ranks call it; the full record is meaningful on rank 0).
nlohmann::json base_manifest(const Runtime& rt, int argc, char** argv);
// Write manifest to <dir>/run.json atomically (rank 0 only; other ranks return).
void write_manifest(const Runtime& rt, const std::string& dir, const nlohmann::json& manifest);

}  // namespace tessera
