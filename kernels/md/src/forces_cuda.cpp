// The tuned CUDA pair-force kernel: TPP lanes per particle (TPP = 1, 2, 4, 8) split its neighbour list
// (lane l takes entries l, l + TPP, ...), each sums its share in the evaluator's precision, and the
// lanes combine their sums with warp shuffles. Several lanes per particle give small systems enough
// threads to fill the card (64,000 particles are 500 blocks of 128 with one lane) and let large ones keep
// more loads in flight. With the list layout neigh[k * n + i], the TPP lanes of 32 / TPP consecutive
// particles read full 32-byte sectors for TPP <= 4.
// Same physics as the portable functor (forces.cpp, PairForce): the same evaluator, separations formed
// in double and rounded to T (in mixed precision from a 32-bit fixed-point copy of the positions,
// FixedFrame: one 16-byte load per neighbour), energies and virials summed in double; with TPP = 1 the
// sums run in the same order. A particle whose count exceeds the capacity (a device-resident build could not regrow,
// neighbor.hpp) takes its pairs from the cell stencil instead, with the same cut-off test (a second,
// normally empty kernel).
// tests/md/test_md_tuned.cpp compares this kernel with the portable one on random configurations.
#include <algorithm>
#include <string>
#include <type_traits>

#include "tessera/core/error.hpp"
#include "tessera/md/forces.hpp"
#include "tessera/md/pair_lj.hpp"
#include "tessera/md/pair_morse.hpp"
#include "tessera/md/pair_table.hpp"

#if TESSERA_CUDA_COMPILER
#include <cuda_runtime.h>

#include "tessera/core/cuda_check.hpp"
#endif

namespace tessera::md {

int default_threads_per_atom(int64_t n) {
  // Measured on one H200 (graph step, mixed). Until 7f92c7d (double gathers): 2 lanes were fastest at
  // 64,000 atoms (9,706 steps/s; 1: 7,614, 4: 9,306, 8: 9,195) and at 2,048,000 (1.271e9 atom-steps/s;
  // 1: 1.262e9, 4: 1.251e9, 8: 1.186e9). With the fixed-point gather batched four deep (ffa616e): 64,000
  // atoms 2 lanes 13,087 steps/s (1: 11,456, 4: 12,490); 2,048,000 atoms 1 lane 1.915e9 atom-steps/s
  // (2: 1.864e9, 4: 1.767e9). Large systems fill the card with one lane per atom and keep more
  // independent gathers in flight per lane.
  return n >= 1000000 ? 1 : 2;
}

#if TESSERA_CUDA_COMPILER
bool tuned_pair_forces_available() { return true; }

namespace {
constexpr int kBlock = 128;

// Mixed precision gathers positions as 32-bit fixed point: x -> (x - origin) / span * 2^32 (modulo 2^32).
// On a periodic axis the span is the box length, so the wrapped 32-bit difference of two particles is their
// minimum-image separation; a non-periodic axis spans four box lengths centred on the box, which no pair
// separation comes near. Resolution: span / 2^32 (3e-8 sigma for the 134-sigma box of 2,048,000 LJ atoms),
// below the float rounding of a separation of order one that the portable mixed kernel applies; the
// separation is then formed in double and rounded to float once, as there.
struct FixedFrame {
  double origin[3], inv_span[3], step[3];
  bool periodic[3];
  explicit FixedFrame(const Box& b) {
    for (int a = 0; a < 3; ++a) {
      periodic[a] = b.periodic[a];
      const double span = b.periodic[a] ? b.L[a] : 4 * b.L[a];
      origin[a] = b.periodic[a] ? b.lo[a] : b.lo[a] + 0.5 * b.L[a] - 0.5 * span;
      inv_span[a] = 1.0 / span;
      step[a] = span / 4294967296.0;  // exact: a power-of-two scaling of span
    }
  }
  __device__ __forceinline__ int fix(double x, int a) const {
    double f = (x - origin[a]) * inv_span[a];
    f = periodic[a] ? f - floor(f) : fmin(fmax(f, 0.0), 1.0);
    return int(unsigned(static_cast<long long>(rint(f * 4294967296.0))));  // 2^32 wraps to 0
  }
};

// x, y, z, type of particles [0, n) (owned and ghosts: neighbours may be ghosts) into q.
__global__ void __launch_bounds__(256) fix_positions(const double* __restrict__ x, const double* __restrict__ y,
                                                     const double* __restrict__ z, const int* __restrict__ type,
                                                     int4* __restrict__ q, FixedFrame fr, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * 256 + threadIdx.x;
  if (i < n) q[i] = make_int4(fr.fix(x[i], 0), fr.fix(y[i], 1), fr.fix(z[i], 2), type[i]);
}

// One pair (i, j): the portable functor's arithmetic (PairForce in forces.cpp).
template <class Eval, class T, bool Energy>
struct Acc {
  T fx = 0, fy = 0, fz = 0;
  double e = 0, w = 0;
  __device__ __forceinline__ void pair(T dx, T dy, T dz, const typename Eval::Param& prm) {
    const T r2 = dx * dx + dy * dy + dz * dz;
    T fr, u;
    if (Eval::eval(r2, prm, fr, u)) {
      fx += fr * dx;
      fy += fr * dy;
      fz += fr * dz;
      if (Energy) {
        e += 0.5 * double(u);
        w += 0.5 * double(fr) * double(r2);
      }
    }
  }
  // Double precision: separations formed in double from the position arrays, as the portable functor.
  // OneType: a single particle type, row[0] for every pair without loading type[j].
  template <bool OneType = false>
  __device__ __forceinline__ void add(const ParticleView& p, const Box& box, const typename Eval::Param* row, double xi,
                                      double yi, double zi, int j) {
    pair(T(box.image(xi - __ldg(p.x + j), 0)), T(box.image(yi - __ldg(p.y + j), 1)), T(box.image(zi - __ldg(p.z + j), 2)),
         row[OneType ? 0 : __ldg(p.type + j)]);
  }
  // Mixed precision: separations from the 32-bit fixed-point positions (FixedFrame), one 16-byte load
  // of (x, y, z, type) per neighbour (qj). The unsigned difference wraps modulo 2^32, which is the minimum
  // image on a periodic axis; scaled in double (exact) and rounded to T once, as the portable functor
  // rounds its double separation.
  template <bool OneType = false>
  __device__ __forceinline__ void add(const FixedFrame& fr, const typename Eval::Param* row, const int4& qi, const int4& qj) {
    pair(T(double(int(unsigned(qi.x) - unsigned(qj.x))) * fr.step[0]),
         T(double(int(unsigned(qi.y) - unsigned(qj.y))) * fr.step[1]),
         T(double(int(unsigned(qi.z) - unsigned(qj.z))) * fr.step[2]), row[OneType ? 0 : qj.w]);
  }
  __device__ __forceinline__ void store(const ParticleView& p, int64_t i) const {
    p.fx[i] = double(fx);
    p.fy[i] = double(fy);
    p.fz[i] = double(fz);
    if (Energy) {
      p.pe[i] = e;
      p.vir[i] = w;
    }
  }
};

// The list loop. A particle whose count overflowed the capacity is left to pair_force_overflow. Mixed
// precision (T = float) gathers the fixed-point positions q, double the position arrays.
template <class Eval, class T, bool Energy, int TPP, bool OneType>
__global__ void __launch_bounds__(kBlock) pair_force_tuned(ParticleView p, const int4* __restrict__ q, FixedFrame fr, Box box,
                                                           NeighborView nl, const typename Eval::Param* __restrict__ params,
                                                           int ntypes) {
  constexpr bool kFixed = std::is_same_v<T, float>;
  const int64_t t = int64_t(blockIdx.x) * kBlock + threadIdx.x;
  const int64_t i = t / TPP;
  const int lane = int(t % TPP);
  Acc<Eval, T, Energy> a;
  bool mine = false;
  if (i < p.n) {
    const int cnt = __ldg(nl.count + i);
    mine = cnt <= nl.capacity;
    if (mine) {
      const int* __restrict__ col = nl.neigh + i;
      if constexpr (kFixed) {
        const int4 qi = q[i];
        const typename Eval::Param* row = OneType ? params : params + qi.w * ntypes;
        // Four neighbours per round with every load issued before the first pair is evaluated (more
        // gathers in flight per lane); the pairs are still summed in list order.
        int k = lane;
        for (; k + 3 * TPP < cnt; k += 4 * TPP) {
          int j[4];
          int4 qj[4];
#pragma unroll
          for (int u = 0; u < 4; ++u) j[u] = __ldg(col + int64_t(k + u * TPP) * nl.stride);
#pragma unroll
          for (int u = 0; u < 4; ++u) qj[u] = __ldg(q + j[u]);
#pragma unroll
          for (int u = 0; u < 4; ++u) a.template add<OneType>(fr, row, qi, qj[u]);
        }
        for (; k < cnt; k += TPP) a.template add<OneType>(fr, row, qi, __ldg(q + __ldg(col + int64_t(k) * nl.stride)));
      } else {
        const typename Eval::Param* row = OneType ? params : params + __ldg(p.type + i) * ntypes;
        const double xi = p.x[i], yi = p.y[i], zi = p.z[i];
        for (int k = lane; k < cnt; k += TPP)
          a.template add<OneType>(p, box, row, xi, yi, zi, __ldg(col + int64_t(k) * nl.stride));
      }
    }
  }
  if constexpr (TPP > 1) {
    // Groups of TPP lanes are aligned inside the warp and every lane takes part (inactive ones with zeros).
    for (int o = TPP / 2; o > 0; o >>= 1) {
      a.fx += __shfl_xor_sync(0xffffffffu, a.fx, o);
      a.fy += __shfl_xor_sync(0xffffffffu, a.fy, o);
      a.fz += __shfl_xor_sync(0xffffffffu, a.fz, o);
      if (Energy) {
        a.e += __shfl_xor_sync(0xffffffffu, a.e, o);
        a.w += __shfl_xor_sync(0xffffffffu, a.w, o);
      }
    }
  }
  if (mine && lane == 0) a.store(p, i);
}

// The cold path, launched after the list loop when device-resident builds are in use: nothing unless the
// builds saw a count above the capacity (*max_count, neighbor.hpp); then every overflowing particle takes
// its pairs from the cell stencil, one thread each. A separate kernel keeps the list loop's registers low.
template <class Eval, class T, bool Energy>
__global__ void __launch_bounds__(kBlock) pair_force_overflow(ParticleView p, Box box, NeighborView nl, CellView cells,
                                                              const int* max_count,
                                                              const typename Eval::Param* __restrict__ params, int ntypes) {
  if (*max_count <= nl.capacity) return;
  for (int64_t i = int64_t(blockIdx.x) * kBlock + threadIdx.x; i < p.n; i += int64_t(gridDim.x) * kBlock) {
    if (nl.count[i] <= nl.capacity) continue;
    const typename Eval::Param* row = params + p.type[i] * ntypes;
    const double xi = p.x[i], yi = p.y[i], zi = p.z[i];
    Acc<Eval, T, Energy> a;
    for_each_cell_candidate(cells, i, 0, 1, [&](int j) {
      if (j != int(i)) a.add(p, box, row, xi, yi, zi, j);
    });
    a.store(p, i);
  }
}

template <class Eval, class T, bool Energy, int TPP>
void launch(cudaStream_t st, const ParticleView& v, const int4* q, const Box& box, const NeighborView& nl,
            const typename Eval::Param* prm, int nt) {
  const int64_t threads = v.n * TPP;
  const unsigned grid = unsigned((threads + kBlock - 1) / kBlock);
  const FixedFrame fr(box);
  if (nt == 1) pair_force_tuned<Eval, T, Energy, TPP, true><<<grid, kBlock, 0, st>>>(v, q, fr, box, nl, prm, nt);
  else pair_force_tuned<Eval, T, Energy, TPP, false><<<grid, kBlock, 0, st>>>(v, q, fr, box, nl, prm, nt);
  TESSERA_CUDA_CHECK_LAUNCH("md::pair_force_tuned");
}

template <class Eval, class T, bool Energy>
void launch_tpp(int tpp, cudaStream_t st, const ParticleView& v, const int4* q, const Box& box, const NeighborView& nl,
                const NeighborList& list, const typename Eval::Param* prm, int nt) {
  switch (tpp) {
    case 1: launch<Eval, T, Energy, 1>(st, v, q, box, nl, prm, nt); break;
    case 2: launch<Eval, T, Energy, 2>(st, v, q, box, nl, prm, nt); break;
    case 4: launch<Eval, T, Energy, 4>(st, v, q, box, nl, prm, nt); break;
    case 8: launch<Eval, T, Energy, 8>(st, v, q, box, nl, prm, nt); break;
    default: TESSERA_THROW("md: threads_per_atom must be 1, 2, 4 or 8 (got " + std::to_string(tpp) + ")");
  }
  if (!list.device_builds()) return;  // a host build() regrows the list: no count above the capacity
  const unsigned grid = unsigned(std::min<int64_t>(264, (v.n + kBlock - 1) / kBlock));
  pair_force_overflow<Eval, T, Energy><<<grid, kBlock, 0, st>>>(v, box, nl, list.cells(), list.device_max_count(), prm, nt);
  TESSERA_CUDA_CHECK_LAUNCH("md::pair_force_overflow");
}

template <class Eval>
void launch_eval(const exec::Exec& ex, Particles& p, const ParticleView& v, const Box& box, const NeighborView& nl,
                 const NeighborList& c, const typename Eval::Param* prm, int nt, Precision prec, bool energy, int tpp) {
  const auto st = static_cast<cudaStream_t>(ex.stream);
  const int4* q = nullptr;
  if (prec == Precision::mixed) {
    const int64_t total = p.total();
    int4* w = reinterpret_cast<int4*>(p.fixed_positions());
    fix_positions<<<unsigned((total + 255) / 256), 256, 0, st>>>(v.x, v.y, v.z, v.type, w, FixedFrame(box), total);
    TESSERA_CUDA_CHECK_LAUNCH("md::fix_positions");
    q = w;
    if (energy) launch_tpp<Eval, float, true>(tpp, st, v, q, box, nl, c, prm, nt);
    else launch_tpp<Eval, float, false>(tpp, st, v, q, box, nl, c, prm, nt);
  } else {
    if (energy) launch_tpp<Eval, double, true>(tpp, st, v, q, box, nl, c, prm, nt);
    else launch_tpp<Eval, double, false>(tpp, st, v, q, box, nl, c, prm, nt);
  }
}
}  // namespace

void compute_pair_forces_tuned(const exec::Exec& ex, Particles& p, const Box& box, const NeighborList& nl,
                               const PairPotential& pot, Precision prec, bool energy, int threads_per_atom) {
  TESSERA_REQUIRE(ex.on_device(), "md: the tuned pair kernel runs on the device only (use the portable one on the host)");
  TESSERA_REQUIRE(pot.ntypes() == p.ntypes(), "pair potential and particles disagree on the number of types");
  const ParticleView v = p.view();
  const NeighborView n = nl.view();
  TESSERA_REQUIRE(n.stride == v.n, "neighbour list is out of date (built for a different particle count)");
  if (v.n == 0) return;
  const int tpp = threads_per_atom > 0 ? threads_per_atom : default_threads_per_atom(v.n);
  switch (pot.style()) {
    case PairStyle::lj: launch_eval<PairLJ>(ex, p, v, box, n, nl, pot.lj(), pot.ntypes(), prec, energy, tpp); break;
    case PairStyle::morse: launch_eval<PairMorse>(ex, p, v, box, n, nl, pot.morse(), pot.ntypes(), prec, energy, tpp); break;
    case PairStyle::table: launch_eval<PairTable>(ex, p, v, box, n, nl, pot.table(), pot.ntypes(), prec, energy, tpp); break;
  }
}

#else

bool tuned_pair_forces_available() { return false; }

void compute_pair_forces_tuned(const exec::Exec&, Particles&, const Box&, const NeighborList&, const PairPotential&,
                               Precision, bool, int) {
  TESSERA_THROW("md: the tuned pair kernel needs a CUDA build (TESSERA_ENABLE_CUDA=ON) and a GPU");
}

#endif

}  // namespace tessera::md
