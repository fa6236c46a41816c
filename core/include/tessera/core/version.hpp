#pragma once
namespace tessera {
const char* version();      // "0.1.0"
const char* git_hash();     // short hash of the source tree at configure time, or "unknown"
const char* build_config(); // "cuda sm_90" / "host"
}  // namespace tessera
