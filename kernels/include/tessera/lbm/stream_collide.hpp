// Fused stream-collide with one population array: the AA pattern (Bailey et al., "Accelerating
// lattice Boltzmann fluid flow simulations using graphics processors", ICPP 2009).
//
// Steps alternate between two kinds; the array holds one copy of the populations throughout.
//   even step: read  f_q(x) from slot q at x,  collide,  write f*_q(x) to slot opp(q) at x (local only)
//   odd step:  read  f_q(x) = f*_q(x - c_q) from slot opp(q) at x - c_q,  collide,
//              write f*_q(x) to slot q at x + c_q
// After an odd step the array is in natural order again (slot q at x = f_q(x) before collision). Each
// cell reads and writes exactly the same memory locations within a step, so cells can run in any
// order and in parallel without races.
//
// Half-way bounce-back (Ladd, J. Fluid Mech. 271 285, 1994) with wall velocity u_w and rho_w = 1:
//   f_opp(q)(x, t+1) = f*_q(x, t) - 6 w_q c_q.u_w    when x + c_q is a wall.
// With AA it is applied where a population would cross into a wall: in the odd step's write (the value
// goes to slot opp(q) at x itself, read by the next even step) and in the odd step's read (the even
// step left f*_opp(q)(x) in slot q at x). Slots of wall cells are never read, so walls need no update.
#pragma once
#include <cstdint>

#include "tessera/lbm/collision.hpp"
#include "tessera/lbm/flags.hpp"
#include "tessera/lbm/grid.hpp"
#include "tessera/lbm/open_boundary.hpp"
#include "tessera/lbm/storage.hpp"

namespace tessera::lbm {

struct WallTable {
  float u[kMaxWallIds][3];
};

// Ladd's correction 2 w_q rho_w (c_q.u_w) / c_s^2 with rho_w = 1. c_q.u_w from its nonzero components
// (c_dot: the same values as the full sum, whose 0 * u terms IEEE arithmetic may not drop; with the LBM
// sources built without implicit fusing, -fmad=false, they cost a multiply and an add each).
template <class L, class A>
TESSERA_HD inline A wall_term(int q, const WallTable& w, uint8_t flag) {
  const int id = flag_wall_id(flag);
  return A(6) * A(L::w(q)) * c_dot<L, A>(q, A(w.u[id][0]), A(w.u[id][1]), A(w.u[id][2]));
}

// A value as the storage holds it: rounded to S and back (the identity for fp32 and fp64 storage). The
// populations bounced back at a wall pass through it once per odd step, like every streamed one: the
// wall's link is read as own slot + wall term rounded to the storage, and the outgoing population is
// rounded before the term is taken off. The odd step may then keep them in the wall's slots (the tuned
// path's staged wall links, kernels/lbm/src/wall_stage.hpp) and get the same bits in every precision.
template <class S, class A>
TESSERA_HD inline A through_storage(A x) {
  return A(Storage<S>::load(Storage<S>::store(x)));
}

// Populations f_q(x) before collision at time t, for a step of the given parity.
template <class L, class S, class A>
TESSERA_HD inline void aa_load(const S* __restrict__ f, const uint8_t* __restrict__ flags, const GridLayout& g,
                               bool odd, const WallTable& walls, int64_t c, A (&out)[L::Q]) {
  const int64_t n = g.cells();
  if (!odd) {
    TESSERA_LBM_UNROLL
    for (int q = 0; q < L::Q; ++q) out[q] = A(Storage<S>::load(f[q * n + c]));
    return;
  }
  out[0] = A(Storage<S>::load(f[c]));
  TESSERA_LBM_UNROLL
  for (int q = 1; q < L::Q; ++q) {
    const int64_t nb = c - g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2));
    const uint8_t fl = flags[nb];
    if (flag_kind(fl) == kWall)
      out[q] = through_storage<S>(A(Storage<S>::load(f[q * n + c])) + wall_term<L, A>(q, walls, fl));
    else
      out[q] = A(Storage<S>::load(f[opposite(q) * n + nb]));
  }
}

// Odd-step load and store of a cell flagged kNoWallNeighbour (or kWallStaged): pure streaming, no neighbour flags read.
// Identical to aa_load / aa_store for such a cell (their wall branches are never taken there).
template <class L, class S, class A>
TESSERA_HD inline void aa_load_odd_free(const S* __restrict__ f, const GridLayout& g, int64_t c, A (&out)[L::Q]) {
  const int64_t n = g.cells();
  out[0] = A(Storage<S>::load(f[c]));
  TESSERA_LBM_UNROLL
  for (int q = 1; q < L::Q; ++q)
    out[q] = A(Storage<S>::load(f[opposite(q) * n + c - g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2))]));
}
template <class L, class S, class A>
TESSERA_HD inline void aa_store_odd_free(S* __restrict__ f, const GridLayout& g, int64_t c, const A (&in)[L::Q]) {
  const int64_t n = g.cells();
  f[c] = Storage<S>::store(in[0]);
  TESSERA_LBM_UNROLL
  for (int q = 1; q < L::Q; ++q) f[q * n + c + g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2))] = Storage<S>::store(in[q]);
}

// Post-collision populations f*_q(x) into the slots the next step reads.
template <class L, class S, class A>
TESSERA_HD inline void aa_store(S* __restrict__ f, const uint8_t* __restrict__ flags, const GridLayout& g, bool odd,
                                const WallTable& walls, int64_t c, const A (&in)[L::Q]) {
  const int64_t n = g.cells();
  if (!odd) {
    TESSERA_LBM_UNROLL
    for (int q = 0; q < L::Q; ++q) f[opposite(q) * n + c] = Storage<S>::store(in[q]);
    return;
  }
  f[c] = Storage<S>::store(in[0]);
  TESSERA_LBM_UNROLL
  for (int q = 1; q < L::Q; ++q) {
    const int64_t nb = c + g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2));
    const uint8_t fl = flags[nb];
    if (flag_kind(fl) == kWall)
      f[opposite(q) * n + c] = Storage<S>::store(through_storage<S>(in[q]) - wall_term<L, A>(q, walls, fl));
    else
      f[q * n + nb] = Storage<S>::store(in[q]);
  }
}

// The odd step of a face cell (flag_face(flags[c]) = face != 0, flags.hpp): its wall neighbours are exactly
// its neighbours at x_a - 1 (face 1 + 2a) or x_a + 1 (face 2 + 2a), all of one wall id, whose flag is
// `wall`. The links q in face_links(face) come from that wall: the cell reads them from its own slot q
// (aa_load's address) and bounces the outgoing opp(q) back into the same slot (aa_store's), so its odd
// step streams with those addresses swapped in, and its values are aa_load's and aa_store's after
// face_from (on the loaded values) and face_into (on the collided ones, before the stores).
// aa_load_face / aa_store_face are that step in the reference's indexing (tests); the tuned one-cell
// kernel takes the same helpers.
template <class L>
TESSERA_HD constexpr uint32_t face_links(int face) {  // bit q: link q comes from the face's wall
  if (face < 1 || face > 2 * L::D) return 0u;
  const int a = (face - 1) / 2, from = (face - 1) % 2 == 0 ? 1 : -1;
  uint32_t m = 0;
  for (int q = 1; q < L::Q; ++q)
    if (L::c(q, a) == from) m |= 1u << q;
  return m;
}
// Bit q: link q goes into the face's wall (the opposites of face_links).
template <class L>
TESSERA_HD constexpr uint32_t face_into_links(int face) {
  const uint32_t from = face_links<L>(face);
  uint32_t m = 0;
  for (int q = 1; q < L::Q; ++q)
    if ((from >> opposite(q)) & 1u) m |= 1u << q;
  return m;
}
// The neighbour of c across its face, a wall with the face's wall id.
TESSERA_HD inline int64_t face_wall_cell(const GridLayout& g, int64_t c, int face) {
  const int a = (face - 1) / 2, d = (face - 1) % 2 == 0 ? -1 : 1;
  return c + g.offset(a == 0 ? d : 0, a == 1 ? d : 0, a == 2 ? d : 0);
}
template <class L, class S, class A>
TESSERA_HD inline void face_from(A (&fq)[L::Q], uint32_t links, const WallTable& walls, uint8_t wall) {
  TESSERA_LBM_UNROLL
  for (int q = 1; q < L::Q; ++q)
    if ((links >> q) & 1u) fq[q] = through_storage<S>(fq[q] + wall_term<L, A>(q, walls, wall));
}
template <class L, class S, class A>
TESSERA_HD inline void face_into(A (&fq)[L::Q], uint32_t links, const WallTable& walls, uint8_t wall) {
  TESSERA_LBM_UNROLL
  for (int q = 1; q < L::Q; ++q)
    if ((links >> opposite(q)) & 1u) fq[q] = through_storage<S>(fq[q]) - wall_term<L, A>(q, walls, wall);  // into the wall
}
// The slot a face cell c reads link q from in an odd step and stores opp(q) to (slot q of c for a link
// from its wall, else slot opp(q) of c - c_q), as an element index of f.
template <class L>
TESSERA_HD inline int64_t face_slot(const GridLayout& g, int64_t c, int q, uint32_t links) {
  const int64_t n = g.cells();
  return ((links >> q) & 1u) ? q * n + c : opposite(q) * n + c - g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2));
}
template <class L, class S, class A>
TESSERA_HD inline void aa_load_face(const S* __restrict__ f, const uint8_t* __restrict__ flags, const GridLayout& g,
                                    const WallTable& walls, int64_t c, A (&out)[L::Q]) {
  const int face = flag_face(flags[c]);
  const uint32_t links = face_links<L>(face);
  out[0] = A(Storage<S>::load(f[c]));
  TESSERA_LBM_UNROLL
  for (int q = 1; q < L::Q; ++q) out[q] = A(Storage<S>::load(f[face_slot<L>(g, c, q, links)]));
  face_from<L, S, A>(out, links, walls, flags[face_wall_cell(g, c, face)]);
}
template <class L, class S, class A>
TESSERA_HD inline void aa_store_face(S* __restrict__ f, const uint8_t* __restrict__ flags, const GridLayout& g,
                                     const WallTable& walls, int64_t c, const A (&in)[L::Q]) {
  const int face = flag_face(flags[c]);
  const uint32_t links = face_links<L>(face);
  A v[L::Q];
  TESSERA_LBM_UNROLL
  for (int q = 0; q < L::Q; ++q) v[q] = in[q];
  face_into<L, S, A>(v, links, walls, flags[face_wall_cell(g, c, face)]);
  f[c] = Storage<S>::store(v[0]);
  TESSERA_LBM_UNROLL
  for (int q = 1; q < L::Q; ++q) f[face_slot<L>(g, c, opposite(q), links)] = Storage<S>::store(v[q]);
}

// Everything one update needs, by value (it is the kernel argument).
template <class A>
struct StepArgs {
  GridLayout grid;
  Relaxation<A> relax;
  A Fx = 0, Fy = 0, Fz = 0;            // uniform body force density
  const float* force = nullptr;        // optional per-cell force, SoA [3][n] over padded cells
  WallTable walls{};
  bool odd = false;
};

// The collision of update_cell: forcing (uniform plus the optional per-cell field) and collide(), on the
// loaded populations fq of cell c. The tuned CUDA kernels load and store their own way and call this, so
// they give the reference's bits. kForce = false (the caller has checked that the step has no force:
// no uniform force, no force field, no Smagorinsky model) leaves the force terms and the LES branch out,
// with the same values up to the sign of an exact zero.
template <class L, CollisionKind K, class A, bool kForce = true>
TESSERA_HD inline void collide_cell(const StepArgs<A>& a, int64_t c, A (&fq)[L::Q]) {
  if constexpr (!kForce) {
    collide<L, K, A, false>(fq, a.relax, A(0), A(0), A(0));
    return;
  }
  A Fx = a.Fx, Fy = a.Fy, Fz = a.Fz;
  if (a.force) {
    const int64_t n = a.grid.cells();
    Fx += A(a.force[c]);
    Fy += A(a.force[n + c]);
    Fz += A(a.force[2 * n + c]);
  }
  collide<L, K, A>(fq, a.relax, Fx, Fy, Fz);
}

// The second half of update_cell: the populations fq of cell c are loaded (free: an odd step of a cell
// flagged kNoWallNeighbour); collide (with forcing) and store.
template <class L, class S, CollisionKind K, class A, bool kForce = true>
TESSERA_HD inline void collide_store_cell(S* __restrict__ f, const uint8_t* __restrict__ flags, const StepArgs<A>& a,
                                          const WallTable& walls, int64_t c, bool free, A (&fq)[L::Q]) {
  collide_cell<L, K, A, kForce>(a, c, fq);
  if (free)
    aa_store_odd_free<L, S, A>(f, a.grid, c, fq);
  else
    aa_store<L, S, A>(f, flags, a.grid, a.odd, walls, c, fq);
}

// One fused stream-collide update of fluid cell c: load (streaming), collide (with forcing), store.
// The wall table is a separate argument so the tuned CUDA kernel can pass one in constant memory.
template <class L, class S, CollisionKind K, class A, bool kForce = true>
TESSERA_HD inline void update_cell(S* __restrict__ f, const uint8_t* __restrict__ flags, const StepArgs<A>& a,
                                   const WallTable& walls, int64_t c) {
  A fq[L::Q];
  const bool free = a.odd && (flags[c] & kStreamFree);
  if (free)
    aa_load_odd_free<L, S, A>(f, a.grid, c, fq);
  else
    aa_load<L, S, A>(f, flags, a.grid, a.odd, walls, c, fq);
  collide_store_cell<L, S, K, A, kForce>(f, flags, a, walls, c, free, fq);
}

// Populations f_q(x) of an open-boundary cell (local interior (i, j, k), padded index c) before
// collision, completed and regularized (open_boundary.hpp); F returns the cell's force density.
template <class L, class S, class A>
TESSERA_HD inline void open_load(const S* __restrict__ f, const uint8_t* __restrict__ flags, const StepArgs<A>& a,
                                 const OpenTable& t, int64_t c, int64_t i, int64_t j, int64_t k, A (&fq)[L::Q],
                                 A (&F)[3]) {
  aa_load<L, S, A>(f, flags, a.grid, a.odd, a.walls, c, fq);
  F[0] = a.Fx, F[1] = a.Fy, F[2] = a.Fz;
  if (a.force) {
    const int64_t n = a.grid.cells();
    F[0] += A(a.force[c]);
    F[1] += A(a.force[n + c]);
    F[2] += A(a.force[2 * n + c]);
  }
  const OpenFace& b = t.face[flag_wall_id(flags[c])];
  A ux = 0, uy = 0, uz = 0;
  if (b.type == 1) open_inlet_velocity<A>(t, b, i, j, k, ux, uy, uz);
  open_reconstruct<L, A>(fq, b, ux, uy, uz, F[0], F[1], F[2]);
}

// One update of an open-boundary cell: load and complete, collide, store (portable path only).
template <class L, class S, CollisionKind K, class A>
TESSERA_HD inline void update_open_cell(S* __restrict__ f, const uint8_t* __restrict__ flags, const StepArgs<A>& a,
                                        const OpenTable& t, int64_t c, int64_t i, int64_t j, int64_t k) {
  A fq[L::Q], F[3];
  open_load<L, S, A>(f, flags, a, t, c, i, j, k, fq, F);
  collide<L, K, A>(fq, a.relax, F[0], F[1], F[2]);
  aa_store<L, S, A>(f, flags, a.grid, a.odd, a.walls, c, fq);
}

// The portable reference body: one cell per call (fluid cells, and open-boundary cells when the lattice
// has open faces).
template <class L, class S, CollisionKind K>
struct StreamCollideAA {
  using A = typename Storage<S>::Real;
  S* f;
  const uint8_t* flags;
  StepArgs<A> a;
  OpenTable open{};

  TESSERA_HD void operator()(int64_t i, int64_t j, int64_t k) const {
    const int64_t c = a.grid.cell(i, j, k);
    const uint8_t kind = flag_kind(flags[c]);
    if (kind == kFluid)
      update_cell<L, S, K, A>(f, flags, a, a.walls, c);
    else if (kind == kOpen)
      update_open_cell<L, S, K, A>(f, flags, a, open, c, i, j, k);
  }
};

}  // namespace tessera::lbm
