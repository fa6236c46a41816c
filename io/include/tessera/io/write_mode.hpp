// How the ranks of a communicator put their pieces into one HDF5 file.
#pragma once
#include <string>

namespace tessera::io {

// Collective: every rank opens the file through MPI-IO (parallel HDF5) and writes its hyperslab in a
//             collective transfer. Needs an HDF5 built with MPI (H5_HAVE_PARALLEL).
// Gather:     rank 0 alone opens the file; each rank's block is sent to rank 0 in turn and written as a
//             hyperslab, so rank 0 holds one block at a time. Works with any HDF5 (the GPU machine's
//             is serial) and gives a byte-for-byte equivalent layout.
// Auto:       Collective when the library is parallel and more than one rank writes, else Gather.
enum class WriteMode { Auto, Collective, Gather };
const char* to_string(WriteMode m);
WriteMode parse_write_mode(const std::string& s);  // "auto" | "collective" | "gather"
// True when this build links a parallel (MPI) HDF5.
bool hdf5_is_parallel();
// The HDF5 library version, e.g. "1.10.8".
std::string hdf5_version();

}  // namespace tessera::io
