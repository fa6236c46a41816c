// The COSMO vertical advection fed by the bulk tensor copy engine (TMA): whole column tiles staged in
// shared memory, a persistent grid, tiles handed out one at a time (CUDA builds, sm_90 and later).
//
// Why (docs/performance.md, "COSMO stencils"): the twisted kernel of vadv_cuda.cpp keeps d' in registers
// and c' in shared memory, so the scratch caps the columns a multiprocessor holds (256), each block is a
// 13-20 us chain of 40 levels whose loads must be in flight from registers, and at 256^2 x 80 a launch is
// 1.97 waves of such blocks on multiprocessors that run up to 12 % apart: the slots are busy 88 % of the
// span. Here the memory traffic and the column solve are decoupled:
//  - A tile is 16 adjacent interior columns of one row, all nz levels of phi and w: two TMA box copies
//    (16 x 1 x nz doubles each) into one shared-memory stage, completing on the stage's mbarrier.
//  - Each warp is an independent worker with kStages stages: while it solves the tile in one stage, the
//    next tiles are on their way into the others. A multiprocessor keeps kWarps x (kStages - 1) tiles
//    (20 KB each at 80 levels) in flight whatever the solve does.
//  - The warp solves its 16 columns with the twisted Thomas algorithm, lanes 0-15 the lower halves
//    upwards and lanes 16-31 the upper halves downwards (VadvStep::mirrored), in place in the stage:
//    c' (a'') over w and d' (d'') over phi of the levels already eliminated, which the other half never
//    reads (below). The two halves of a column meet through a shuffle, then substitute back and store
//    to out with streaming stores (ghost columns and rows are never written).
//  - The grid is persistent (as many blocks as fit at once) and each warp takes its next tile from a
//    device counter, so fast multiprocessors take more tiles and the launch ends within about one tile's
//    solve of its last load instead of one block's 13-20 us.
// The arithmetic is VadvStep's, call for call as in vadv_columns_portable_twisted: the result equals it
// bit for bit on the device (tests/weather/test_cosmo_tuned.cpp).
//
// The counter is never reset: every launch adds exactly ntiles + (number of warps) to it (each warp takes
// tiles until one request comes back past the end), so the host passes each launch its base, per stream
// (launches on one stream run in order; the kernel touches the counter only after the PDL wait).
#include "cosmo_cuda.hpp"

#if TESSERA_CUDA_COMPILER
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "pdl_launch.hpp"
#include "tessera/core/cuda_check.hpp"
#include "tessera/core/error.hpp"

namespace tessera::weather::detail {
namespace {

constexpr int kTileX = 16;  // columns per tile: one per lane pair (l, l + 16) of a warp

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
// Arrive once and expect `bytes` more from the copy engine before the phase completes.
__device__ __forceinline__ void mbar_expect_tx(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned long long* bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "VADV_TMA_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra VADV_TMA_WAIT;\n"
      "}\n" ::"r"(smem_u32(bar)),
      "r"(parity)
      : "memory");
}
// Box (x, y, z) of a 3-D tensor map into shared memory, completing on bar.
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, int x, int y, int z,
                                            unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];\n" ::"r"(smem_u32(dst)),
      "l"(map), "r"(x), "r"(y), "r"(z), "r"(smem_u32(bar))
      : "memory");
}

struct TmaArgs {
  Grid G;
  VadvStep S;
  double* out;
  unsigned long long* counter;
  unsigned long long base;  // the counter's value when this launch starts
  int ntiles, tiles_x;
};

// The warp's next tile (from lane 0, broadcast), or -1 past the end.
__device__ __forceinline__ int next_tile(const TmaArgs& a, int lane) {
  int t = -1;
  if (lane == 0) {
    const unsigned long long v = atomicAdd(a.counter, 1ull) - a.base;
    t = v < static_cast<unsigned long long>(a.ntiles) ? static_cast<int>(v) : -1;
  }
  return __shfl_sync(0xffffffffu, t, 0);
}

// Lane 0: ask for tile t's phi and w (16 x 1 x nz doubles each) into the stage, completing on bar.
__device__ __forceinline__ void issue_tile(const TmaArgs& a, const CUtensorMap* tin, const CUtensorMap* tw,
                                           double* stage, unsigned long long* bar, int t) {
  const int nz = int(a.G.nz);
  const int x = int(a.G.g) + kTileX * (t % a.tiles_x), y = int(a.G.g) + t / a.tiles_x;
  mbar_expect_tx(bar, unsigned(2 * nz * kTileX * sizeof(double)));
  tma_load_3d(stage, tin, x, y, 0, bar);
  tma_load_3d(stage + nz * kTileX, tw, x, y, 0, bar);
}

// The twisted solve of one staged tile (see the file comment), then its columns of out.
__device__ __forceinline__ void solve_tile(const TmaArgs& a, double* stage, int t, int lane) {
  const Grid& G = a.G;
  const int nz = int(G.nz);
  const int col = lane & (kTileX - 1);
  const bool upper = lane >= kTileX;
  const int nt = (nz + 1) / 2;
  const int nl = upper ? nz - nt : nt;  // levels of this lane
  const VadvStep D = upper ? a.S.mirrored() : a.S;
  double* sphi = stage + col;                // [nz][16]: phi(k), then d'_k (d''_k above)
  double* sw = stage + nz * kTileX + col;    // [nz][16]: w(k+1/2), then c'_k (a''_k above)
  // Level t of a lane is k = t (lower) or nz-1-t (upper); it reads phi(k) and its next level's phi and w:
  // w(k+1/2) = w[k], phi(k+1) below; w(k-1/2) = w[k-1], phi(k-1) above (both exist iff t + 1 < nz).
  // Each lane overwrites slot k of phi and w once it has read them, except at its last level: the lower
  // lanes read slots 0..nt (phi) and 0..nt-1 (w) and write 0..nt-2, the upper ones read nt-1..nz-1 and
  // write nt+1..nz-1, so neither half writes a slot the other reads, and no barrier is needed.
  const int dk = upper ? -1 : 1;
  const int wof = upper ? -1 : 0;
  int k = upper ? nz - 1 : 0;
  VadvStep::Carry cs;
  double phi = sphi[k * kTileX];
#pragma unroll 4
  for (int l = 0; l < nl; ++l) {
    const bool ok = l + 1 < nz;
    const double wp = ok ? sw[(k + wof) * kTileX] : 0.0;
    const double phip = ok ? sphi[(k + dk) * kTileX] : 0.0;
    D.forward(cs, wp, phi, phip);
    if (l + 1 < nl) {
      sw[k * kTileX] = cs.cp;
      sphi[k * kTileX] = cs.dp;
    }
    phi = phip;
    k += dk;
  }
  // Lower lane: c'_m, d'_m; upper lane: a''_{m+1}, d''_{m+1} (zero when it has no levels, nz = 1).
  const double ocp = __shfl_xor_sync(0xffffffffu, cs.cp, kTileX);
  const double odp = __shfl_xor_sync(0xffffffffu, cs.dp, kTileX);
  double xm, xn;
  if (upper) VadvStep::meet(ocp, odp, cs.cp, cs.dp, xm, xn);
  else VadvStep::meet(cs.cp, cs.dp, ocp, odp, xm, xn);
  // Back substitution outwards from the meeting point: x_k = d'_k - c'_k x_{k+1} below, d''_k - a''_k
  // x_{k-1} above.
  const int64_t i = int64_t(kTileX) * (t % a.tiles_x) + col, j = t / a.tiles_x;
  const bool live = i < G.nx;
  const int64_t plane = G.plane();
  double* o = a.out + G.idx(live ? i : 0, j);
  k -= dk;  // this lane's last level
  double x = upper ? xn : xm;
  if (live && nl > 0) __stcs(o + plane * k, x);
#pragma unroll 4
  for (int l = nl - 2; l >= 0; --l) {
    k -= dk;
    x = VadvStep::back(sphi[k * kTileX], sw[k * kTileX], x);
    if (live) __stcs(o + plane * k, x);
  }
}

template <int kWarps, int kStages>
__global__ void __launch_bounds__(32 * kWarps, 1)
    vadv_column_tma(const __grid_constant__ CUtensorMap tin, const __grid_constant__ CUtensorMap tw, TmaArgs a) {
  extern __shared__ __align__(128) double s_tiles[];  // [kWarps][kStages][2][nz][16]
  __shared__ __align__(8) unsigned long long s_bar[kWarps * kStages];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int stage_doubles = 2 * int(a.G.nz) * kTileX;
  double* stages = s_tiles + size_t(warp) * kStages * stage_doubles;
  unsigned long long* bar = s_bar + warp * kStages;
  if (lane == 0) {
    for (int s = 0; s < kStages; ++s) mbar_init(bar + s, 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(&tin) : "memory");
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(&tw) : "memory");
  }
  __syncwarp();
  pdl_enter();  // no global memory (counter, tiles, out) before the previous launch has completed
  // Each warp asks for tiles until one request comes back past the end (exactly one such request per warp:
  // the host's count of what a launch adds to the counter relies on it).
  int tile[kStages];
  bool more = true;
#pragma unroll
  for (int s = 0; s < kStages; ++s) {
    tile[s] = more ? next_tile(a, lane) : -1;
    more = tile[s] >= 0;
    if (lane == 0 && more) issue_tile(a, &tin, &tw, stages + s * stage_doubles, bar + s, tile[s]);
  }
  unsigned parity = 0;  // bit s: the phase of stage s to wait for
  for (;;) {
    bool any = false;
#pragma unroll
    for (int s = 0; s < kStages; ++s) {
      if (tile[s] < 0) continue;
      any = true;
      double* stage = stages + s * stage_doubles;
      mbar_wait(bar + s, (parity >> s) & 1u);
      parity ^= 1u << s;
      solve_tile(a, stage, tile[s], lane);
      // The stage's shared memory was read and written by the lanes (generic proxy); the copy engine
      // (async proxy) writes it next: order the two (fence in every writing lane, then the warp barrier).
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      __syncwarp();
      tile[s] = more ? next_tile(a, lane) : -1;
      more = tile[s] >= 0;
      if (lane == 0 && tile[s] >= 0) issue_tile(a, &tin, &tw, stage, bar + s, tile[s]);
    }
    if (!any) break;
  }
}

using EncodeTiled = PFN_cuTensorMapEncodeTiled_v12000;

EncodeTiled encoder() {
  static const EncodeTiled fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    TESSERA_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !p)
      TESSERA_THROW("vadv (TMA form): the CUDA driver has no cuTensorMapEncodeTiled; update the driver or set "
                    "TESSERA_VADV_KERNEL=auto");
    return reinterpret_cast<EncodeTiled>(p);
  }();
  return fn;
}

// The interior of a padded 3-D field as a tensor (x, y, z) from the row-0 ghost corner: x < g + nx and
// y < g + ny, so boxes beyond the interior's far edges are zero-filled, not read from the ghosts.
CUtensorMap tensor_map(const double* base, const Grid& G) {
  CUtensorMap m{};
  const cuuint64_t dims[3] = {cuuint64_t(G.g + G.nx), cuuint64_t(G.g + G.ny), cuuint64_t(G.nz)};
  const cuuint64_t strides[2] = {cuuint64_t(G.sx()) * sizeof(double), cuuint64_t(G.plane()) * sizeof(double)};
  const cuuint32_t box[3] = {kTileX, 1, cuuint32_t(G.nz)};
  const cuuint32_t elem[3] = {1, 1, 1};
  const CUresult r = encoder()(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 3, const_cast<double*>(base), dims, strides, box,
                               elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                               CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    TESSERA_THROW("vadv (TMA form): cuTensorMapEncodeTiled failed with CUresult " + std::to_string(int(r)) +
                  " for a " + std::to_string(G.nx) + " x " + std::to_string(G.ny) + " x " + std::to_string(G.nz) +
                  " grid; set TESSERA_VADV_KERNEL=auto to use the twisted form");
  return m;
}

// The tile counter of a stream and the value it will have when the next launch on that stream starts.
struct Counter {
  unsigned long long* d = nullptr;
  unsigned long long next = 0;
};
std::pair<unsigned long long*, unsigned long long> take_counter(cudaStream_t s, unsigned long long adds) {
  static std::mutex mu;
  static std::map<std::pair<int, cudaStream_t>, Counter> counters;  // (device, stream)
  int dev = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
  const std::lock_guard<std::mutex> lock(mu);
  Counter& c = counters[{dev, s}];
  if (!c.d) {
    TESSERA_CUDA_CHECK(cudaMalloc(&c.d, sizeof(unsigned long long)));
    TESSERA_CUDA_CHECK(cudaMemsetAsync(c.d, 0, sizeof(unsigned long long), s));
  }
  const unsigned long long base = c.next;
  c.next += adds;
  return {c.d, base};
}

template <int kWarps, int kStages>
bool launch(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* in, const double* w,
            double* out, const char* name) {
  const size_t smem = size_t(kWarps) * kStages * 2 * size_t(gr.nz) * kTileX * sizeof(double);
  static const int optin = [] {
    int dev = 0, v = 0;
    TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    return v;
  }();
  if (smem + kWarps * kStages * 8 > size_t(optin)) return false;
  auto kernel = vadv_column_tma<kWarps, kStages>;
  static size_t raised = 0;
  if (smem > raised) {
    TESSERA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    raised = smem;
  }
  int dev = 0, sms = 0, per_sm = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  TESSERA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * kWarps, smem));
  if (per_sm < 1) return false;
  const int tiles_x = int((gr.nx + kTileX - 1) / kTileX);
  const int64_t ntiles = int64_t(tiles_x) * gr.ny;
  const int blocks = int(std::min<int64_t>(int64_t(sms) * per_sm, (ntiles + kWarps - 1) / kWarps));
  const cudaStream_t s = static_cast<cudaStream_t>(ex.stream);
  const auto [counter, base] = take_counter(s, static_cast<unsigned long long>(ntiles) + static_cast<unsigned long long>(blocks) * kWarps);
  TmaArgs a{gr, VadvStep::make(vp), out, counter, base, int(ntiles), tiles_x};
  launch_maybe_pdl(pdl_wanted("TESSERA_VADV_PDL"), kernel, dim3(unsigned(blocks)), dim3(32 * kWarps), smem, s,
                   tensor_map(in, gr), tensor_map(w, gr), a);
  TESSERA_CUDA_CHECK_LAUNCH("weather::vadv_column_tma");
  vadv_note_form(name);
  return true;
}

}  // namespace

bool vadv_tma_fits(const Grid& gr, const double* in, const double* w) {
  const auto aligned16 = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  // TMA: global strides multiples of 16 bytes, a 16-byte aligned base, box extents up to 256; tile and
  // row indices in int.
  return gr.nz >= 1 && gr.nz <= 256 && gr.sx() % 2 == 0 && gr.plane() % 2 == 0 && aligned16(in) && aligned16(w) &&
         (gr.nx + kTileX - 1) / kTileX * gr.ny < (int64_t(1) << 30) && gr.g + gr.ny < (int64_t(1) << 30);
}

bool vadv_tma(const exec::Exec& ex, const Grid& gr, const VadvParams& vp, const double* in, const double* w,
              double* out, const std::string& form) {
  static const int major = [] {
    int dev = 0, v = 0;
    TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, dev));
    return v;
  }();
  if (major < 9 || !vadv_tma_fits(gr, in, w)) return false;
  if (form == "tma4x2") return launch<4, 2>(ex, gr, vp, in, w, out, "tma4x2");
  if (form == "tma5x2") return launch<5, 2>(ex, gr, vp, in, w, out, "tma5x2");
  if (form == "tma3x3") return launch<3, 3>(ex, gr, vp, in, w, out, "tma3x3");
  if (form == "tma2x4") return launch<2, 4>(ex, gr, vp, in, w, out, "tma2x4");
  if (form == "tma1x2") return launch<1, 2>(ex, gr, vp, in, w, out, "tma1x2");
  if (form == "tma1x3") return launch<1, 3>(ex, gr, vp, in, w, out, "tma1x3");
  return launch<4, 2>(ex, gr, vp, in, w, out, "tma4x2");  // "tma"
}

}  // namespace tessera::weather::detail
#endif
