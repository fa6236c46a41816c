// The tuned CUDA stream-collide with the populations staged in shared memory by the Tensor Memory
// Accelerator ("staged kernel", compute capability 9.0+).
//
// Why: the one-cell kernel (tuned_cuda.cpp) keeps a cell's loads in registers, so the bytes an SM has in
// flight are bounded by its resident threads (768 at 80 registers), and every thread loads, waits, collides
// and stores in turn: the loads are in flight only part of the time (docs/performance.md, issue 5). Here
// persistent blocks walk over tiles of BX cells of one x-row; for each tile one warp issues one bulk copy
// per population slot (cp.async.bulk, completion counted in bytes on an mbarrier) of the row segment the
// tile reads, NS - 1 tiles ahead of the one the block collides. The copies hold no registers, so an SM
// keeps several tiles in flight while its threads collide.
//
// What a tile of cells x0 .. x0 + nb - 1 (one row y, z) reads, slot by slot (stream_collide.hpp):
//   even step: slot q at the cell itself:             elements q * n + c,             c = c0 .. c0 + nb - 1
//   odd step:  slot opp(q) at the upstream neighbour: elements opp(q) * n + c - off(c_q)
// so every slot is a contiguous run of nb elements starting at rel_q + c0 (rel_q fixed per launch). The
// bulk copy needs 16-byte aligned addresses and sizes, so it moves the run widened to 16-byte boundaries
// (at most V - 1 extra elements on each side, V = 16 / sizeof(S)); a thread finds its element at offset
// ((rel_q + c0) mod V) + t. The extra elements belong to other tiles and are never used. The allocation is
// rounded up to 16 bytes (lattice_state.cpp), so the widened run of the last slot stays inside it.
//
// Odd steps of cells without the kNoWallNeighbour bit (next to a wall) load through the generic aa_load
// (global memory, neighbour flags) instead; all cells collide and store with collide_store_cell, the
// second half of the reference's update_cell, so the kernel gives the one-cell kernel's bits
// (tests/lbm/test_tuned.cpp checks it, and against the portable reference).
//
// OPT-IN while it is measured (TESSERA_LBM_STAGED=on; docs/performance.md).
#include "lattice_impl.hpp"
#include "lattice_ops.hpp"
#include "tessera/core/error.hpp"
#include "tessera/lbm/lattice_state.hpp"

#if TESSERA_CUDA_COMPILER
#include <cuda_runtime.h>

#include <cstdlib>
#include <string>

#include "tessera/core/cuda_check.hpp"
#endif

namespace tessera::lbm::detail {

#if TESSERA_CUDA_COMPILER
namespace {

__constant__ WallTable c_staged_walls;

struct StagedGeom {
  uint32_t tiles_x;  // tiles per row: ceil(nx / BX)
  uint32_t ntiles;   // tiles_x * ny * nz
};

// ---- sm_90 PTX: mbarrier and bulk copies (PTX ISA 8.0) ----
__device__ inline uint32_t smem_u32(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

__device__ inline void mbar_init(uint64_t* b, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(b)), "r"(count) : "memory");
}
__device__ inline void mbar_fence_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// Generic-proxy accesses to shared memory (the threads' reads of a stage) before async-proxy writes
// into it (the next bulk copy into that stage).
__device__ inline void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

__device__ inline void mbar_arrive_expect_tx(uint64_t* b, uint32_t bytes) {
  asm volatile(
      "{\n\t.reg .b64 st;\n\t"
      "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 st, [%0], %1;\n\t}" ::"r"(smem_u32(b)),
      "r"(bytes)
      : "memory");
}
__device__ inline void mbar_wait(uint64_t* b, uint32_t parity) {
  uint32_t done;
  do {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.b32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(smem_u32(b)), "r"(parity)
        : "memory");
  } while (!done);
}
__device__ inline void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* b) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_u32(dst)),
      "l"(__cvta_generic_to_global(src)), "r"(bytes), "r"(smem_u32(b))
      : "memory");
}

template <class L, class S, int BX>
struct StagedShape {
  static constexpr int Q = L::Q;
  static constexpr int V = 16 / int(sizeof(S));  // elements per 16 bytes
  static constexpr int SEG = BX + 2 * V;           // a widened run of BX elements, 16-byte multiple
  static constexpr size_t stage_bytes = size_t(Q) * SEG * sizeof(S);
  static size_t smem_bytes(int ns) { return size_t(ns) * stage_bytes + size_t(ns) * 8 + 32; }
};

// Warp 0 (all 32 lanes): the bulk copies of `tile` into `stage`. Lane q < Q copies slot q's run; rel is
// that lane's rel_q.
template <class L, class S, int BX>
__device__ inline void issue_tile(const S* f, S* stage, uint64_t* bar, uint32_t tile, const StagedGeom& sg,
                                  const GridLayout& g, int64_t rel, uint32_t lane) {
  using Sh = StagedShape<L, S, BX>;
  const uint32_t tx = tile % sg.tiles_x, row = tile / sg.tiles_x;
  const int64_t x0 = int64_t(tx) * BX, y = row % uint32_t(g.ny), z = row / uint32_t(g.ny);
  const int64_t nb = g.nx - x0 < BX ? g.nx - x0 : BX;
  const int64_t start = rel + g.cell(x0, y, z);
  const int64_t lo = start & ~int64_t(Sh::V - 1), hi = (start + nb + Sh::V - 1) & ~int64_t(Sh::V - 1);
  const uint32_t bytes = lane < uint32_t(Sh::Q) ? uint32_t(hi - lo) * uint32_t(sizeof(S)) : 0u;
  const uint32_t total = __reduce_add_sync(0xffffffffu, bytes);
  if (lane == 0) {
    fence_proxy_async();
    mbar_arrive_expect_tx(bar, total);
  }
  __syncwarp();
  if (lane < uint32_t(Sh::Q)) bulk_load(stage + size_t(lane) * Sh::SEG, f + lo, bytes, bar);
}

// MB: minimum resident blocks per SM (__launch_bounds__): 4 x 128 threads for D3Q19 (up to 128
// registers), 3 x 128 for D3Q27 (170), whose four stages of 58 KB (fp32) allow three blocks anyway.
template <class L, int BX>
constexpr int staged_min_blocks() {
  return (L::Q <= 19 ? 512 : 384) / BX;
}

template <class L, class S, CollisionKind K, int BX, int NS>
__global__ void __launch_bounds__(BX, staged_min_blocks<L, BX>())
    stream_collide_staged(S* __restrict__ f, const uint8_t* __restrict__ flags, StepArgs<float> a, StagedGeom sg) {
  using Sh = StagedShape<L, S, BX>;
  using A = float;
  constexpr int Q = L::Q, V = Sh::V;
  extern __shared__ __align__(16) unsigned char smem[];
  S* buf = reinterpret_cast<S*>(smem);
  uint64_t* bar = reinterpret_cast<uint64_t*>(smem + size_t(NS) * Sh::stage_bytes);
  uint8_t* mis = reinterpret_cast<uint8_t*>(bar + NS);  // (rel_q mod V), q < Q
  const uint32_t t = threadIdx.x, lane = t & 31u;
  const bool issuer = t < 32;
  const GridLayout& g = a.grid;

  // Lane q of warp 0 keeps rel_q for the whole launch (the parity is fixed).
  int64_t rel = 0;
  if (issuer) {
    const int64_t n = g.cells();
    TESSERA_LBM_UNROLL
    for (int q = 0; q < Q; ++q)
      if (lane == uint32_t(q))
        rel = !a.odd ? int64_t(q) * n
                     : (q == 0 ? 0 : int64_t(opposite(q)) * n - g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2)));
    if (lane < uint32_t(Q)) mis[lane] = uint8_t(uint32_t(rel) & uint32_t(V - 1));
    if (lane == 0) {
      for (int s = 0; s < NS; ++s) mbar_init(&bar[s], 1);
      mbar_fence_init();
    }
  }
  __syncthreads();
  // The misalignments, 3 bits per slot, in registers.
  uint32_t pk[(Q + 9) / 10] = {};
  TESSERA_LBM_UNROLL
  for (int q = 0; q < Q; ++q) pk[q / 10] |= uint32_t(mis[q]) << (3 * (q % 10));

  const uint32_t G = gridDim.x;
  if (issuer) {
    TESSERA_LBM_UNROLL
    for (int k = 0; k < NS - 1; ++k) {
      const uint32_t tile = blockIdx.x + uint32_t(k) * G;
      if (tile < sg.ntiles) issue_tile<L, S, BX>(f, buf + size_t(k) * Q * Sh::SEG, &bar[k], tile, sg, g, rel, lane);
    }
  }
  for (uint32_t k = 0;; ++k) {
    const uint32_t tile = blockIdx.x + k * G;
    if (tile >= sg.ntiles) break;
    const uint32_t s = k % NS;
    if (issuer) {
      const uint32_t next = tile + uint32_t(NS - 1) * G, ns = (k + NS - 1) % NS;
      if (next < sg.ntiles) issue_tile<L, S, BX>(f, buf + size_t(ns) * Q * Sh::SEG, &bar[ns], next, sg, g, rel, lane);
    }
    mbar_wait(&bar[s], (k / NS) & 1u);
    const uint32_t tx = tile % sg.tiles_x, row = tile / sg.tiles_x;
    const int64_t x = int64_t(tx) * BX + t;
    if (x < g.nx) {
      const int64_t c = g.cell(x, row % uint32_t(g.ny), row / uint32_t(g.ny));
      const uint8_t fl = __ldg(flags + c);
      if (is_fluid(fl)) {
        const bool free = a.odd && (fl & kNoWallNeighbour);
        A fq[Q];
        if (!a.odd || free) {
          const S* st = buf + size_t(s) * Q * Sh::SEG;
          const uint32_t c0 = uint32_t(c) - t;
          TESSERA_LBM_UNROLL
          for (int q = 0; q < Q; ++q) {
            const uint32_t m = ((pk[q / 10] >> (3 * (q % 10))) + c0) & uint32_t(V - 1);
            fq[q] = A(Storage<S>::load(st[q * Sh::SEG + m + t]));
          }
        } else {
          aa_load<L, S, A>(f, flags, g, true, c_staged_walls, c, fq);
        }
        collide_store_cell<L, S, K, A>(f, flags, a, c_staged_walls, c, free, fq);
      }
    }
    __syncthreads();
  }
}

// Tile width BX (threads per block) and pipeline depth NS (tiles in flight per block, NS - 1 ahead).
struct StagedLaunch {
  int bx, ns;
};

std::string staged_variant() {
  const char* e = std::getenv("TESSERA_LBM_STAGED");
  return std::string(e ? e : "");
}

template <class L, class S, CollisionKind K, int BX, int NS>
void go(cudaStream_t st, LatticeState& s, const StepArgs<float>& a) {
  using Sh = StagedShape<L, S, BX>;
  const GridLayout& g = s.grid();
  auto kern = stream_collide_staged<L, S, K, BX, NS>;
  const size_t bytes = Sh::smem_bytes(NS);
  static const int grid_max = [&] {  // persistent blocks: as many as fit at once
    int dev = 0, sms = 0, per_sm = 0;
    TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    TESSERA_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    TESSERA_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    TESSERA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, BX, bytes));
    TESSERA_REQUIRE(per_sm > 0, "staged LBM kernel: no block fits on a multiprocessor");
    return sms * per_sm;
  }();
  StagedGeom sg;
  sg.tiles_x = uint32_t((g.nx + BX - 1) / BX);
  sg.ntiles = uint32_t(uint64_t(sg.tiles_x) * uint64_t(g.ny) * uint64_t(g.nz));
  // TESSERA_LBM_STAGED_GRID=N caps the blocks (tests: small boxes then still make every block walk
  // several tiles through the whole ring of stages).
  const char* cap_env = std::getenv("TESSERA_LBM_STAGED_GRID");
  const long cap = cap_env ? std::atol(cap_env) : 0;
  uint32_t blocks = sg.ntiles < uint32_t(grid_max) ? sg.ntiles : uint32_t(grid_max);
  if (cap > 0 && uint32_t(cap) < blocks) blocks = uint32_t(cap);
  kern<<<blocks, BX, bytes, st>>>(static_cast<S*>(s.pops()), s.flags(), a, sg);
}

template <class L, class S, CollisionKind K>
void launch(const exec::Exec& ex, LatticeState& s, const CollisionParams& p) {
  const StepArgs<float> a = make_step_args<float>(s, p);
  const auto st = static_cast<cudaStream_t>(ex.stream);
  TESSERA_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_staged_walls, &p.walls, sizeof(WallTable), 0, cudaMemcpyHostToDevice, st));
  // Pipeline variants (BGK only; TESSERA_LBM_STAGED=BXxNS), kept for measurement: docs/performance.md.
  const std::string v = staged_variant();
  if constexpr (K == CollisionKind::BGK) {
    if (v == "128x3") go<L, S, K, 128, 3>(st, s, a);
    else if (v == "128x6") go<L, S, K, 128, 6>(st, s, a);
    else if (v == "256x3") go<L, S, K, 256, 3>(st, s, a);
    else go<L, S, K, 128, 4>(st, s, a);
  } else {
    go<L, S, K, 128, 4>(st, s, a);
  }
  TESSERA_CUDA_CHECK_LAUNCH("lbm::stream_collide_staged");
}

template <class L, class S>
void by_collision(const exec::Exec& ex, LatticeState& s, const CollisionParams& p) {
  switch (p.kind) {
    case CollisionKind::BGK: launch<L, S, CollisionKind::BGK>(ex, s, p); break;
    case CollisionKind::TRT: launch<L, S, CollisionKind::TRT>(ex, s, p); break;
    case CollisionKind::Regularized: launch<L, S, CollisionKind::Regularized>(ex, s, p); break;
  }
}

template <class L>
void by_precision(const exec::Exec& ex, LatticeState& s, const CollisionParams& p) {
  if (s.precision() == Precision::FP32)
    by_collision<L, float>(ex, s, p);
  else
    by_collision<L, half_t>(ex, s, p);
}

// TESSERA_LBM_STAGED (read at every step): "on" or a pipeline variant BXxNS selects the staged kernel;
// unset, "off" or anything else leaves it out.
bool staged_selected() {
  const std::string v = staged_variant();
  return v == "on" || v == "128x3" || v == "128x6" || v == "256x3";
}

bool device_has_bulk_copy() {
  static const bool ok = [] {
    int dev = 0, major = 0;
    TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    return major >= 9;
  }();
  return ok;
}
}  // namespace
#endif

bool tuned_staged_applicable(const LatticeState& s) {
  const GridLayout& g = s.grid();
  const uint64_t tiles = uint64_t((g.nx + 127) / 128) * uint64_t(g.ny) * uint64_t(g.nz);
  return s.lattice() != LatticeKind::D2Q9 && s.precision() != Precision::FP64 && g.gz == 1 &&
         tiles < (uint64_t(1) << 31) && (reinterpret_cast<uintptr_t>(s.pops()) & 15u) == 0
#if TESSERA_CUDA_COMPILER
         && device_has_bulk_copy()
#endif
      ;
}

bool tuned_staged_step(const exec::Exec& ex, LatticeState& s, const CollisionParams& p) {
#if TESSERA_CUDA_COMPILER
  if (!staged_selected() || !tuned_staged_applicable(s)) return false;
  switch (s.lattice()) {
    case LatticeKind::D3Q19: by_precision<D3Q19>(ex, s, p); return true;
    case LatticeKind::D3Q27: by_precision<D3Q27>(ex, s, p); return true;
    case LatticeKind::D2Q9: return false;
  }
  return false;
#else
  (void)ex;
  (void)s;
  (void)p;
  return false;
#endif
}

}  // namespace tessera::lbm::detail
