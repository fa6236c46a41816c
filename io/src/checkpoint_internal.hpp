// Private: the checkpoint payload checksum, shared by the writer and the verifier.
#pragma once
#include <hdf5.h>

#include <cstdint>
#include <string>

namespace tessera::io::detail {

// XXH64 over the payload: the root attributes step, time, case_hash, case_text, solver, nranks, then
// every dataset under /fields, /global and /local in name order (its path, shape, element size and
// bytes in native order, and the rank_counts of /local arrays). The "checksum" attribute is not covered.
uint64_t checkpoint_payload_hash(hid_t file, const std::string& path);
inline const char* checkpoint_format() { return "tessera-checkpoint"; }

}  // namespace tessera::io::detail
