// bench_l2_lbm_pattern: the D3Q19 AA access pattern (fp32, periodic box, no collision) on a layout whose
// lines are placed by L2 partition, against the same pattern on the solver's slot arrays.
//
// bench_l2_partition shows that each 128-byte line of device memory has a home in one of the two L2
// partitions, hashed line by line, and that a multiprocessor streams its own partition's lines much
// faster than the other's. The LBM slot arrays hash every line of a cell's populations independently,
// so half of every step's accesses cross between the partitions. Here the box is cut at z = nz/2; the 19
// slot lines of every run of 32 cells in x (a "unit") of the lower half are placed, through a table, on
// lines homed in partition 0 and those of the upper half on lines of partition 1, and the multiprocessors
// of each partition take the units of their half ("near"). Layouts and schedules measured, each step
// timed on its own (even: every access the unit's own 19 lines; odd: the neighbours' lines, x +- 1
// shifted by a cell):
//   slots/direct/address  the solver's layout (slot q of cell c at q n + c), plain indexing, units in
//                         address order from one queue
//   slots/table/address   the same through the table (the table's own cost)
//   homes/table/address   the partition-placed layout, units in address order (about half the accesses far)
//   homes/table/near      each multiprocessor takes the units of its own partition's half first
//   homes/table/far       each takes the other half's first (every access crosses the link)
// Every form is checked: after the timed steps (an even number), slot q of cell c must hold the initial
// value of cell c - s c_q (s the number of steps), read back through each layout, on sampled cells.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "partition_map.cuh"

namespace {

constexpr int kQ = 19;
__constant__ int c_cx[kQ] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
__constant__ int c_cy[kQ] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
__constant__ int c_cz[kQ] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};
__constant__ int c_opp[kQ] = {0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15, 18, 17};
const int h_cx[kQ] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
const int h_cy[kQ] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
const int h_cz[kQ] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};
const int h_opp[kQ] = {0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15, 18, 17};

struct Box {
  int nx, ny, nz, nxb;  // nxb = nx / 32 units per row
  unsigned units;       // nxb ny nz
};

__host__ __device__ inline float hash01(int q, uint64_t cell) {
  uint64_t h = (cell * 0x9E3779B97F4A7C15ull) ^ (static_cast<uint64_t>(q + 1) * 0xC2B2AE3D27D4EB4Full);
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return static_cast<float>(h & 0xFFFFFF) * (1.0f / 16777216.0f);
}
__host__ __device__ inline float weight(int q) { return q == 0 ? 1.0f / 3 : (q < 7 ? 1.0f / 18 : 1.0f / 36); }
// Initial populations: random in [0, 1) for the pattern alone; near equilibrium (w_q (1 +- 5 %)) with the
// collision, so that it stays stable.
__host__ __device__ inline float initial_value(int q, uint64_t cell, bool collide) {
  const float r = hash01(q, cell);
  return collide ? weight(q) * (1.0f + 0.1f * (r - 0.5f)) : r;
}

// Where slot q of the 32-cell unit u starts, in floats (below 2^32: pools of up to 16 GiB).
template <bool kTable>
__device__ __forceinline__ unsigned line_of(const unsigned* __restrict__ T, unsigned units, int q, unsigned u) {
  if constexpr (kTable)
    return __ldg(T + q * units + u) * 32u;
  else
    return (q * units + u) * 32u;
}

template <bool kTable>
__global__ void fill(float* pool, const unsigned* T, Box B, bool collide) {
  const size_t n = static_cast<size_t>(B.units) * 32;
  for (size_t c = blockIdx.x * size_t{blockDim.x} + threadIdx.x; c < n; c += size_t{gridDim.x} * blockDim.x)
    for (int q = 0; q < kQ; ++q)
      pool[line_of<kTable>(T, B.units, q, static_cast<unsigned>(c / 32)) + static_cast<unsigned>(c % 32)] =
          initial_value(q, c, collide);
}

// BGK without force, fp32 (the host reference below does the same in fp64).
__device__ __forceinline__ void bgk(float (&f)[kQ], float omega) {
  float rho = 0, jx = 0, jy = 0, jz = 0;
#pragma unroll
  for (int q = 0; q < kQ; ++q) {
    rho += f[q];
    jx += c_cx[q] * f[q];
    jy += c_cy[q] * f[q];
    jz += c_cz[q] * f[q];
  }
  const float inv = 1.0f / rho, ux = jx * inv, uy = jy * inv, uz = jz * inv;
  const float usq = 1.5f * (ux * ux + uy * uy + uz * uz);
#pragma unroll
  for (int q = 0; q < kQ; ++q) {
    const float cu = 3.0f * (c_cx[q] * ux + c_cy[q] * uy + c_cz[q] * uz);
    const float feq = weight(q) * rho * (1.0f + cu + 0.5f * cu * cu - usq);
    f[q] += omega * (feq - f[q]);
  }
}

// The work queues of the units: mode 0, one queue over every unit in address order; 1, the units of the half
// of the box placed on the warp's own partition first, then the other half; 2, the other half first.
// f(u0, end) gets each batch the warp takes: units u0 .. end - 1 (warp-uniform).
template <class F>
__device__ __forceinline__ void for_each_batch(const Box& B, unsigned* counters, const unsigned char* group, int mode,
                                               unsigned batch, F&& f) {
  const unsigned g = group[l2map::sm_id()] & 1;
  const unsigned half = B.units / 2;
  const unsigned first = mode == 0 ? 0 : (mode == 1 ? g : 1 - g);
  for (int phase = 0; phase < (mode == 0 ? 1 : 2); ++phase) {
    const unsigned which = phase == 0 ? first : 1 - first;
    const unsigned lo = mode == 0 ? 0 : which * half;
    const unsigned n = mode == 0 ? B.units : half;
    for (;;) {
      unsigned start = 0;
      if ((threadIdx.x & 31) == 0) start = atomicAdd(&counters[which], batch);
      start = __shfl_sync(0xffffffffu, start, 0);
      if (start >= n) break;
      f(lo + start, lo + min(n, start + batch));
    }
  }
}

// One AA step over the units, one cell per thread; a warp takes `batch` units at a time (for_each_batch).
// omega > 0: the BGK collision between the loads and the stores (otherwise the pattern alone).
template <bool kOdd, bool kTable, bool kCollide>
__global__ void __launch_bounds__(256, kCollide ? 2 : 3)
    aa_step(float* __restrict__ pool, const unsigned* __restrict__ T, Box B, unsigned* counters,
            const unsigned char* group, int mode, unsigned batch, float omega) {
  const int lane = threadIdx.x & 31;
  for_each_batch(B, counters, group, mode, batch, [&](unsigned u0, unsigned u_end) {
    for (unsigned u = u0; u < u_end; ++u) {
      float v[kQ];
      if constexpr (!kOdd) {  // every access the cell's own: slot q read, slot opp(q) written
#pragma unroll
        for (int q = 0; q < kQ; ++q) v[q] = pool[line_of<kTable>(T, B.units, q, u) + static_cast<unsigned>(lane)];
        if constexpr (kCollide) bgk(v, omega);
#pragma unroll
        for (int q = 0; q < kQ; ++q)
          pool[line_of<kTable>(T, B.units, c_opp[q], u) + static_cast<unsigned>(lane)] = v[q];
      } else {
        const int xb = static_cast<int>(u % B.nxb);
        const int y = static_cast<int>((u / B.nxb) % B.ny);
        const int z = static_cast<int>(u / (static_cast<unsigned>(B.nxb) * B.ny));
        const int x = xb * 32 + lane;
#pragma unroll
        for (int q = 0; q < kQ; ++q) {  // f_q arrives from c - c_q, slot opp(q)
          int xs = x - c_cx[q], ys = y - c_cy[q], zs = z - c_cz[q];
          xs += xs < 0 ? B.nx : (xs >= B.nx ? -B.nx : 0);
          ys += ys < 0 ? B.ny : (ys >= B.ny ? -B.ny : 0);
          zs += zs < 0 ? B.nz : (zs >= B.nz ? -B.nz : 0);
          const unsigned us = (static_cast<unsigned>(zs) * B.ny + ys) * B.nxb + (xs >> 5);
          v[q] = pool[line_of<kTable>(T, B.units, c_opp[q], us) + static_cast<unsigned>(xs & 31)];
        }
        if constexpr (kCollide) bgk(v, omega);
#pragma unroll
        for (int q = 0; q < kQ; ++q) {  // and leaves to c + c_q, slot q
          int xd = x + c_cx[q], yd = y + c_cy[q], zd = z + c_cz[q];
          xd += xd < 0 ? B.nx : (xd >= B.nx ? -B.nx : 0);
          yd += yd < 0 ? B.ny : (yd >= B.ny ? -B.ny : 0);
          zd += zd < 0 ? B.nz : (zd >= B.nz ? -B.nz : 0);
          const unsigned ud = (static_cast<unsigned>(zd) * B.ny + yd) * B.nxb + (xd >> 5);
          pool[line_of<kTable>(T, B.units, q, ud) + static_cast<unsigned>(xd & 31)] = v[q];
        }
      }
    }
  });
}

__device__ __forceinline__ float get4(const float4& v, int j) {
  return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w;
}
__device__ __forceinline__ void set4(float4& v, int j, float x) {
  if (j == 0)
    v.x = x;
  else if (j == 1)
    v.y = x;
  else if (j == 2)
    v.z = x;
  else
    v.w = x;
}

// The even step with 16-byte accesses (--wide; as the solver's quad kernel): a warp takes 4 units at once,
// 8 lanes per unit, 4 cells per lane.
template <bool kTable, bool kCollide>
__global__ void __launch_bounds__(128, kCollide ? 2 : 4)
    aa_even_wide(float* __restrict__ pool, const unsigned* __restrict__ T, Box B, unsigned* counters,
                 const unsigned char* group, int mode, unsigned batch, float omega) {
  const int lane = threadIdx.x & 31, sub = lane >> 3, l8 = lane & 7;
  (void)batch;
  for_each_batch(B, counters, group, mode, 4u, [&](unsigned u0, unsigned u_end) {
    const unsigned u = u0 + sub;
    if (u >= u_end) return;
    float4 v[kQ];
#pragma unroll
    for (int q = 0; q < kQ; ++q)
      v[q] = *reinterpret_cast<const float4*>(pool + line_of<kTable>(T, B.units, q, u) + 4u * l8);
    if constexpr (kCollide) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        float f[kQ];
#pragma unroll
        for (int q = 0; q < kQ; ++q) f[q] = get4(v[q], j);
        bgk(f, omega);
#pragma unroll
        for (int q = 0; q < kQ; ++q) set4(v[q], j, f[q]);
      }
    }
#pragma unroll
    for (int q = 0; q < kQ; ++q)
      *reinterpret_cast<float4*>(pool + line_of<kTable>(T, B.units, c_opp[q], u) + 4u * l8) = v[q];
  });
}

// The odd step with two x-adjacent cells per lane and 8-byte accesses (--pair; as the solver's pair kernel):
// a warp takes two units (64 cells of a row; nx a multiple of 64). Population q of the lane's cells x0 and
// x0 + 1 arrives from x0 - c_x and x0 + 1 - c_x: for c_x = 0 one aligned pair; for c_x = +-1 the aligned
// pair holds one of them and the neighbour lane's the other (a shuffle; the warp's end lane reads the one
// value beyond the warp). The stores mirror the loads.
template <bool kTable>
__device__ __forceinline__ unsigned cell_at(const unsigned* __restrict__ T, const Box& B, int q, int x, int y, int z) {
  x += x < 0 ? B.nx : (x >= B.nx ? -B.nx : 0);
  y += y < 0 ? B.ny : (y >= B.ny ? -B.ny : 0);
  z += z < 0 ? B.nz : (z >= B.nz ? -B.nz : 0);
  const unsigned u = (static_cast<unsigned>(z) * B.ny + y) * B.nxb + (x >> 5);
  return line_of<kTable>(T, B.units, q, u) + static_cast<unsigned>(x & 31);
}

template <bool kTable, bool kCollide>
__global__ void __launch_bounds__(128, 4)
    aa_odd_pair(float* __restrict__ pool, const unsigned* __restrict__ T, Box B, unsigned* counters,
                const unsigned char* group, int mode, unsigned batch, float omega) {
  const int lane = threadIdx.x & 31;
  (void)batch;
  for_each_batch(B, counters, group, mode, 2u, [&](unsigned u0, unsigned u_end) {
    (void)u_end;
    const int xb = static_cast<int>(u0 % B.nxb);
    const int y = static_cast<int>((u0 / B.nxb) % B.ny);
    const int z = static_cast<int>(u0 / (static_cast<unsigned>(B.nxb) * B.ny));
    const int x0 = xb * 32 + 2 * lane;  // this lane's cells x0, x0 + 1
    float a[kQ], b[kQ];                 // f_q of cell x0 and of cell x0 + 1
#pragma unroll
    for (int q = 0; q < kQ; ++q) {  // f_q arrives from c - c_q, slot opp(q)
      const int cx = c_cx[q], qs = c_opp[q];
      const float2 p = *reinterpret_cast<const float2*>(pool + cell_at<kTable>(T, B, qs, x0, y - c_cy[q], z - c_cz[q]));
      if (cx == 0) {
        a[q] = p.x;
        b[q] = p.y;
      } else if (cx == 1) {  // sources x0 - 1 (the previous lane's p.y) and x0 (p.x)
        const float up = __shfl_up_sync(0xffffffffu, p.y, 1);
        a[q] = lane == 0 ? pool[cell_at<kTable>(T, B, qs, x0 - 1, y - c_cy[q], z - c_cz[q])] : up;
        b[q] = p.x;
      } else {  // sources x0 + 1 (p.y) and x0 + 2 (the next lane's p.x)
        const float down = __shfl_down_sync(0xffffffffu, p.x, 1);
        a[q] = p.y;
        b[q] = lane == 31 ? pool[cell_at<kTable>(T, B, qs, x0 + 2, y - c_cy[q], z - c_cz[q])] : down;
      }
    }
    if constexpr (kCollide) {
      bgk(a, omega);
      bgk(b, omega);
    }
#pragma unroll
    for (int q = 0; q < kQ; ++q) {  // and leaves to c + c_q, slot q
      const int cx = c_cx[q];
      const int yd = y + c_cy[q], zd = z + c_cz[q];
      float* pp = pool + cell_at<kTable>(T, B, q, x0, yd, zd);  // the aligned pair x0, x0 + 1 of the target row
      if (cx == 0) {
        *reinterpret_cast<float2*>(pp) = make_float2(a[q], b[q]);
      } else if (cx == 1) {  // targets x0 + 1 (a) and x0 + 2 (b): the pair gets (previous lane's b, a)
        const float up = __shfl_up_sync(0xffffffffu, b[q], 1);
        const float last = __shfl_sync(0xffffffffu, b[q], 31);  // lane 31's b goes beyond the warp
        if (lane == 0) {
          pp[1] = a[q];
          pool[cell_at<kTable>(T, B, q, x0 + 64, yd, zd)] = last;
        } else {
          *reinterpret_cast<float2*>(pp) = make_float2(up, a[q]);
        }
      } else {  // targets x0 - 1 (a) and x0 (b): the pair gets (b, next lane's a)
        const float down = __shfl_down_sync(0xffffffffu, a[q], 1);
        const float first = __shfl_sync(0xffffffffu, a[q], 0);  // lane 0's a goes before the warp
        if (lane == 31) {
          pp[0] = b[q];
          pool[cell_at<kTable>(T, B, q, x0 - 63, yd, zd)] = first;
        } else {
          *reinterpret_cast<float2*>(pp) = make_float2(b[q], down);
        }
      }
    }
  });
}

// The host reference: `steps` AA steps (from an even one) of the same BGK in fp64 on the logical slots
// F[q][cell] of an n^3 periodic box.
void reference_steps(std::vector<double>& F, int n, int steps, double omega) {
  const size_t cells = size_t(n) * n * n;
  auto wrap = [n](int a) { return (a % n + n) % n; };
  for (int s = 0; s < steps; ++s) {
    const bool odd = s % 2 == 1;
    for (size_t c = 0; c < cells; ++c) {
      const int x = int(c % n), y = int((c / n) % n), z = int(c / (size_t(n) * n));
      auto at = [&](int q, int sign) {
        return (size_t(wrap(z + sign * h_cz[q])) * n + wrap(y + sign * h_cy[q])) * n + wrap(x + sign * h_cx[q]);
      };
      double f[kQ];
      for (int q = 0; q < kQ; ++q) f[q] = odd ? F[size_t(h_opp[q]) * cells + at(q, -1)] : F[size_t(q) * cells + c];
      double rho = 0, jx = 0, jy = 0, jz = 0;
      for (int q = 0; q < kQ; ++q) rho += f[q], jx += h_cx[q] * f[q], jy += h_cy[q] * f[q], jz += h_cz[q] * f[q];
      const double ux = jx / rho, uy = jy / rho, uz = jz / rho, usq = 1.5 * (ux * ux + uy * uy + uz * uz);
      for (int q = 0; q < kQ; ++q) {
        const double cu = 3.0 * (h_cx[q] * ux + h_cy[q] * uy + h_cz[q] * uz);
        f[q] += omega * (double(weight(q)) * rho * (1.0 + cu + 0.5 * cu * cu - usq) - f[q]);
      }
      for (int q = 0; q < kQ; ++q) {
        if (odd)
          F[size_t(q) * cells + at(q, +1)] = f[q];
        else
          F[size_t(h_opp[q]) * cells + c] = f[q];
      }
    }
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Setup {
  Box B{};
  size_t lines = 0, pool_lines = 0;
  float* slots = nullptr;  // the solver's layout: slot q of cell c at q n + c
  float* pool = nullptr;   // the partition-placed layout's lines
  unsigned* T_id = nullptr;
  unsigned* T_home = nullptr;
  double unanimous = 0;
};

Setup make_setup(int n, double margin, const l2map::SmGroups& G) {
  Setup S;
  S.B = Box{n, n, n, n / 32, static_cast<unsigned>(n / 32) * n * n};
  S.lines = size_t{kQ} * S.B.units;
  S.pool_lines = static_cast<size_t>(S.lines * (1.0 + margin));
  CK(cudaMalloc(&S.slots, S.lines * 128));
  CK(cudaMalloc(&S.T_id, S.lines * sizeof(unsigned)));
  CK(cudaMalloc(&S.T_home, S.lines * sizeof(unsigned)));
  std::vector<unsigned> t(S.lines);
  for (size_t k = 0; k < S.lines; ++k) t[k] = static_cast<unsigned>(k);
  CK(cudaMemcpy(S.T_id, t.data(), S.lines * sizeof(unsigned), cudaMemcpyHostToDevice));
  CK(cudaMalloc(&S.pool, S.pool_lines * 128));
  CK(cudaMemset(S.pool, 0, S.pool_lines * 128));
  const l2map::LineMap M = l2map::map_lines(reinterpret_cast<unsigned*>(S.pool), S.pool_lines * 128, 128, 8, G, 3);
  S.unanimous = M.agreement;
  std::vector<unsigned> of_home[2];
  for (size_t k = 0; k < S.pool_lines; ++k) of_home[M.home[k]].push_back(static_cast<unsigned>(k));
  size_t next[2] = {0, 0};
  const unsigned half = S.B.units / 2;
  for (int q = 0; q < kQ; ++q)
    for (unsigned u = 0; u < S.B.units; ++u) {
      const int h = u < half ? 0 : 1;
      if (next[h] >= of_home[h].size()) {
        std::fprintf(stderr, "bench_l2_lbm_pattern: the pool has too few lines of partition %d: raise --margin\n", h);
        std::exit(1);
      }
      t[size_t(q) * S.B.units + u] = of_home[h][next[h]++];
    }
  CK(cudaMemcpy(S.T_home, t.data(), S.lines * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::printf("%d^3: pool of %zu lines (%zu needed) mapped, %.1f ms per pass, passes unanimous on %.4f\n", n,
              S.pool_lines, S.lines, M.ms_per_pass, M.agreement);
  return S;
}

void free_setup(Setup& S) {
  CK(cudaFree(S.slots));
  CK(cudaFree(S.pool));
  CK(cudaFree(S.T_id));
  CK(cudaFree(S.T_home));
  S = Setup{};
}

struct Form {
  const char* name;
  bool table;
  bool homes;
  int mode;
};

// Slot q of every cell of the form's layout, read back to the host as F[q][cell].
std::vector<double> read_back(const Setup& S, const Form& f) {
  const size_t cells = size_t{S.B.units} * 32;
  std::vector<unsigned> t(S.lines);
  CK(cudaMemcpy(t.data(), f.homes ? S.T_home : S.T_id, S.lines * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const size_t nlines = f.homes ? S.pool_lines : S.lines;
  std::vector<float> raw(nlines * 32);
  CK(cudaMemcpy(raw.data(), f.homes ? S.pool : S.slots, nlines * 128, cudaMemcpyDeviceToHost));
  std::vector<double> F(size_t{kQ} * cells);
  for (int q = 0; q < kQ; ++q)
    for (size_t c = 0; c < cells; ++c)
      F[size_t(q) * cells + c] = raw[size_t{t[size_t(q) * S.B.units + c / 32]} * 32 + c % 32];
  return F;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 256, pairs = 5, reps = 5;
  double margin = 0.05, omega = 0.0;
  bool wide = false, pair = false;
  std::string out, commit = "unknown";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_l2_lbm_pattern: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--n")
      n = std::atoi(next().c_str());
    else if (a == "--pairs")
      pairs = std::atoi(next().c_str());
    else if (a == "--reps")
      reps = std::atoi(next().c_str());
    else if (a == "--margin")
      margin = std::atof(next().c_str());
    else if (a == "--collide")
      omega = std::atof(next().c_str());
    else if (a == "--wide")
      wide = true;
    else if (a == "--pair")
      pair = true;
    else if (a == "--out")
      out = next();
    else if (a == "--commit")
      commit = next();
    else {
      std::fprintf(stderr,
                   "usage: bench_l2_lbm_pattern [--n N (multiple of 32)] [--pairs P] [--reps R] [--margin M] "
                   "[--collide OMEGA (BGK; 0: the pattern alone)] [--wide (16-byte even steps)] [--pair (8-byte odd "
                   "steps)] [--out FILE.jsonl] "
                   "[--commit HASH]\n");
      return 2;
    }
  }
  if (n < 32 || n % (pair ? 64 : 32) || pairs < 1 || reps < 1 || margin < 0 || omega < 0 || omega >= 2) {
    std::fprintf(
        stderr,
        "bench_l2_lbm_pattern: --n must be a positive multiple of 32 (of 64 with --pair), --pairs/--reps >= 1, "
        "0 <= --collide < 2\n");
    return 2;
  }
  const bool collide = omega > 0;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("card %s; D3Q19 fp32 AA %s, %d^3%s%s\n", prop.name, collide ? "step with BGK" : "pattern (no collision)",
              n, wide ? ", even steps with 16-byte accesses" : "", pair ? ", odd steps with 8-byte accesses" : "");

  // the copy ceiling in this process
  cudaEvent_t e0, e1, e2;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventCreate(&e2));
  double copy_tbs = 0;
  {
    void *a = nullptr, *b = nullptr;
    const size_t cb = size_t{2} << 30;
    CK(cudaMalloc(&a, cb));
    CK(cudaMalloc(&b, cb));
    CK(cudaMemset(a, 0, cb));
    std::vector<double> t;
    for (int r = 0; r < 12; ++r) {
      CK(cudaEventRecord(e0));
      CK(cudaMemcpyAsync(b, a, cb, cudaMemcpyDeviceToDevice));
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 2) t.push_back(2.0 * cb / (ms * 1e-3) / 1e12);
    }
    copy_tbs = median(t);
    // the multiprocessors' groups, on the zeroed buffer
    const l2map::SmGroups G0 = l2map::probe_sms(static_cast<unsigned*>(a), cb, 8);
    (void)G0;
    CK(cudaFree(a));
    CK(cudaFree(b));
  }
  std::printf("cudaMemcpy (2 GiB, read + write counted): %.3f TB/s\n", copy_tbs);
  unsigned* zero = nullptr;
  CK(cudaMalloc(&zero, size_t{256} << 20));
  CK(cudaMemset(zero, 0, size_t{256} << 20));
  const l2map::SmGroups G = l2map::probe_sms(zero, size_t{256} << 20, 8);
  CK(cudaFree(zero));
  std::printf("SM groups %d / %d (|corr| >= %.3f, near %.0f / far %.0f cycles per atomic)\n", G.sizes[0], G.sizes[1],
              G.min_abs_corr, G.near_cycles, G.far_cycles);

  unsigned* counters = nullptr;
  CK(cudaMalloc(&counters, 2 * sizeof(unsigned)));
  int bps = 0;
  if (collide)
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, aa_step<true, true, true>, 256, 0));
  else
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, aa_step<true, true, false>, 256, 0));
  const int grid = prop.multiProcessorCount * bps;
  int bps_wide = 0;
  if (collide)
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps_wide, aa_even_wide<true, true>, 128, 0));
  else
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps_wide, aa_even_wide<true, false>, 128, 0));
  const int grid_wide = prop.multiProcessorCount * bps_wide;
  int bps_pair = 0;
  if (collide)
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps_pair, aa_odd_pair<true, true>, 128, 0));
  else
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps_pair, aa_odd_pair<true, false>, 128, 0));
  const int grid_pair = prop.multiProcessorCount * bps_pair;
  std::printf("blocks per SM: %d of 256 threads (one cell per thread)%s\n", bps,
              wide ? (", wide even steps: " + std::to_string(bps_wide) + " of 128").c_str() : "");
  const unsigned batch = 4;
  const Form forms[] = {{"slots/direct/address", false, false, 0},
                        {"slots/table/address", true, false, 0},
                        {"homes/table/address", true, true, 0},
                        {"homes/table/near", true, true, 1},
                        {"homes/table/far", true, true, 2}};
  auto step = [&](const Setup& S, const Form& f, bool odd) {
    float* buf = f.homes ? S.pool : S.slots;
    const unsigned* T = f.homes ? S.T_home : S.T_id;
    CK(cudaMemsetAsync(counters, 0, 2 * sizeof(unsigned)));
    const int k = (odd ? 4 : 0) + (f.table ? 2 : 0) + (collide ? 1 : 0);
    auto go = [&](auto kernel) {
      kernel<<<grid, 256>>>(buf, T, S.B, counters, G.d_group, f.mode, batch, float(omega));
    };
    auto go_wide = [&](auto kernel) {
      kernel<<<grid_wide, 128>>>(buf, T, S.B, counters, G.d_group, f.mode, batch, float(omega));
    };
    auto go_pair = [&](auto kernel) {
      kernel<<<grid_pair, 128>>>(buf, T, S.B, counters, G.d_group, f.mode, batch, float(omega));
    };
    if (pair && odd) {
      if (f.table && collide)
        go_pair(aa_odd_pair<true, true>);
      else if (f.table)
        go_pair(aa_odd_pair<true, false>);
      else if (collide)
        go_pair(aa_odd_pair<false, true>);
      else
        go_pair(aa_odd_pair<false, false>);
      CK(cudaGetLastError());
      return;
    }
    if (wide && !odd) {
      if (f.table && collide)
        go_wide(aa_even_wide<true, true>);
      else if (f.table)
        go_wide(aa_even_wide<true, false>);
      else if (collide)
        go_wide(aa_even_wide<false, true>);
      else
        go_wide(aa_even_wide<false, false>);
      CK(cudaGetLastError());
      return;
    }
    switch (k) {
      case 0:
        go(aa_step<false, false, false>);
        break;
      case 1:
        go(aa_step<false, false, true>);
        break;
      case 2:
        go(aa_step<false, true, false>);
        break;
      case 3:
        go(aa_step<false, true, true>);
        break;
      case 4:
        go(aa_step<true, false, false>);
        break;
      case 5:
        go(aa_step<true, false, true>);
        break;
      case 6:
        go(aa_step<true, true, false>);
        break;
      default:
        go(aa_step<true, true, true>);
        break;
    }
    CK(cudaGetLastError());
  };
  auto fill_form = [&](const Setup& S, const Form& f) {
    if (f.table)
      fill<true><<<grid, 256>>>(f.homes ? S.pool : S.slots, f.homes ? S.T_home : S.T_id, S.B, collide);
    else
      fill<false><<<grid, 256>>>(S.slots, S.T_id, S.B, collide);
    CK(cudaGetLastError());
  };

  bool all_ok = true;
  if (collide) {  // every form against the host reference, 4 steps on a 64^3 box
    const int nc = 64, steps = 4;
    Setup S = make_setup(nc, 0.25, G);
    std::vector<double> ref(size_t{kQ} * nc * nc * nc);
    for (int q = 0; q < kQ; ++q)
      for (size_t c = 0; c < size_t(nc) * nc * nc; ++c) ref[size_t(q) * nc * nc * nc + c] = initial_value(q, c, true);
    reference_steps(ref, nc, steps, omega);
    for (const Form& f : forms) {
      fill_form(S, f);
      for (int s = 0; s < steps; ++s) step(S, f, s % 2 == 1);
      CK(cudaDeviceSynchronize());
      const std::vector<double> got = read_back(S, f);
      double worst = 0;
      for (size_t k = 0; k < ref.size(); ++k) worst = std::max(worst, std::fabs(got[k] - ref[k]));
      const bool ok = worst < 1e-6;
      std::printf("check %-22s %d^3, %d steps against the fp64 host reference: max |error| %.2e %s\n", f.name, nc,
                  steps, worst, ok ? "ok" : "WRONG");
      all_ok = all_ok && ok;
    }
    free_setup(S);
    if (!all_ok) {
      std::fprintf(stderr, "bench_l2_lbm_pattern: a form disagrees with the host reference\n");
      return 1;
    }
  }

  Setup S = make_setup(n, margin, G);
  const size_t cells = size_t{S.B.units} * 32;
  FILE* js = out.empty() ? nullptr : std::fopen(out.c_str(), "a");
  if (!out.empty() && !js) {
    std::fprintf(stderr, "bench_l2_lbm_pattern: cannot write %s\n", out.c_str());
    return 1;
  }
  const double step_bytes = 2.0 * S.lines * 128;
  for (int round = 0; round < 2; ++round)
    for (const Form& f : forms) {
      fill_form(S, f);
      int steps = 0;
      for (int w = 0; w < 2; ++w, steps += 2) step(S, f, false), step(S, f, true);
      std::vector<double> te, to;
      for (int r = 0; r < reps; ++r)
        for (int p = 0; p < pairs; ++p, steps += 2) {
          CK(cudaEventRecord(e0));
          step(S, f, false);
          CK(cudaEventRecord(e1));
          step(S, f, true);
          CK(cudaEventRecord(e2));
          CK(cudaEventSynchronize(e2));
          float a = 0, b = 0;
          CK(cudaEventElapsedTime(&a, e0, e1));
          CK(cudaEventElapsedTime(&b, e1, e2));
          te.push_back(a * 1e-3);
          to.push_back(b * 1e-3);
        }
      // the pattern alone is a permutation: slot q of cell c holds the initial value of cell c - steps c_q
      size_t bad = 0;
      if (!collide) {
        std::vector<unsigned> t(S.lines);
        if (f.table)
          CK(cudaMemcpy(t.data(), f.homes ? S.T_home : S.T_id, S.lines * sizeof(unsigned), cudaMemcpyDeviceToHost));
        float* buf = f.homes ? S.pool : S.slots;
        for (int s = 0; s < 2000; ++s) {
          const size_t c = (static_cast<size_t>(s) * 2654435761ull + 977) % cells;
          const int x = static_cast<int>(c % n), y = static_cast<int>((c / n) % n),
                    z = static_cast<int>(c / (size_t(n) * n));
          for (int q = 0; q < kQ; ++q) {
            const unsigned u = static_cast<unsigned>(c / 32);
            const size_t line = f.table ? size_t{t[size_t(q) * S.B.units + u]} : size_t(q) * S.B.units + u;
            float got = 0;
            CK(cudaMemcpy(&got, buf + line * 32 + c % 32, sizeof(float), cudaMemcpyDeviceToHost));
            const int xs = ((x - steps * h_cx[q]) % n + n) % n, ys = ((y - steps * h_cy[q]) % n + n) % n,
                      zs = ((z - steps * h_cz[q]) % n + n) % n;
            if (got != initial_value(q, (size_t(zs) * n + ys) * n + xs, false)) ++bad;
          }
          if (s == 200 && bad == 0) break;  // the rest only where something is off
        }
      }
      const double t_even = median(te), t_odd = median(to);
      const double tb_even = step_bytes / t_even / 1e12, tb_odd = step_bytes / t_odd / 1e12;
      const double tb = 2 * step_bytes / (t_even + t_odd) / 1e12;
      const double mlups = 2.0 * cells / (t_even + t_odd) / 1e6;
      std::printf("%-22s even %.3f TB/s (%.3f of copy), odd %.3f (%.3f), both %.3f (%.3f): %.0f MLUPs/s%s\n", f.name,
                  tb_even, tb_even / copy_tbs, tb_odd, tb_odd / copy_tbs, tb, tb / copy_tbs, mlups,
                  bad ? "  WRONG VALUES" : "");
      if (bad) all_ok = false;
      if (js)
        std::fprintf(
            js,
            "{\"benchmark\":\"l2_lbm_pattern\",\"card\":\"%s\",\"commit\":\"%s\",\"lattice\":\"D3Q19\","
            "\"precision\":\"fp32\",\"even_access\":\"%s\",\"odd_access\":\"%s\",\"collision\":\"%s\",\"omega\":%.3f,"
            "\"size\":%d,\"form\":\"%"
            "s\",\"round\":%d,"
            "\"copy_TBps\":%.4f,\"even_TBps\":%.4f,\"odd_TBps\":%.4f,\"TBps\":%.4f,\"fraction_of_ceiling\":%.4f,"
            "\"MLUPs\":%.1f,\"groups\":[%d,%d],\"map_unanimous\":%.5f,\"margin\":%.3f,\"blocks_per_sm\":%d,"
            "\"checked\":\"%s\"}\n",
            prop.name, commit.c_str(), wide ? "16B" : "4B", pair ? "8B" : "4B", collide ? "BGK" : "none", omega, n,
            f.name, round, copy_tbs, tb_even, tb_odd, tb, tb / copy_tbs, mlups, G.sizes[0], G.sizes[1], S.unanimous,
            margin, bps, collide ? "64^3 against fp64 host reference" : (bad ? "WRONG" : "permutation, sampled"));
    }
  if (js) std::fclose(js);
  free_setup(S);
  if (!all_ok) {
    std::fprintf(stderr, "bench_l2_lbm_pattern: a form gave wrong values (see above)\n");
    return 1;
  }
  return 0;
}
