#include "tessera/domain/parallel_options.hpp"

namespace tessera::domain {

void add_parallel_keys(Schema& s, bool memory, bool overlap, bool overlap_default) {
  s.section("parallel", "Multi-GPU: halo transport and field memory");
  s.add_enum("parallel.transport", {"host", "cuda_aware", "nccl", "auto"})
      .default_value("host")
      .describe("Halo transport: host (MPI through pinned host buffers, works everywhere), cuda_aware (device "
                "pointers to MPI; only if the MPI library reports CUDA support), nccl (NCCL send/recv on the "
                "solver's stream; needs a build with NCCL), auto (nccl, else cuda_aware, else host). Results "
                "are bit-identical for every choice");
  if (overlap)
    s.add_bool("parallel.overlap")
        .default_value(overlap_default)
        .describe("Update the cells that read no ghost while the halo moves, the boundary shell after it "
                  "(bit-identical either way; each solver defaults to what measured faster, docs/performance.md)");
  if (!memory) return;
  s.add_enum("parallel.memory", {"device", "managed"})
      .default_value("device")
      .describe("GPU runs: fields in device memory, or in managed (unified) memory, prefetched to the GPU and "
                "advised to stay there; refused when it would exceed the GPU's free memory");
}

ParallelOptions parallel_from_case(const Case& c) {
  ParallelOptions p;
  p.transport = parse_transport(c.get<std::string>("parallel.transport"));
  // parallel.memory is declared only by solvers that support managed fields (add_parallel_keys).
  p.managed = c.schema().find("parallel.memory") && c.get<std::string>("parallel.memory") == "managed";
  p.overlap = c.schema().find("parallel.overlap") && c.get<bool>("parallel.overlap");
  return p;
}

}  // namespace tessera::domain
