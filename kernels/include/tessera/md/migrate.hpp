// Device-resident pieces of a decomposed md rebuild (solvers/md: decomposition.hpp): marking the atoms that
// left the sub-box or lie near a face, stream compaction of their indices, packing whole atoms into
// messages and gathering kept + received atoms into a fresh set of arrays, and the (cell, id) sort.
// One source for the OpenMP host back end and CUDA (exec::parallel_for functors); the compaction and the
// sort use CUB on the device (DeviceSelect::If, DeviceRadixSort) and plain loops on the host. No MPI here:
// the solver moves the bytes.
//
// Message layouts (doubles, planes: field f of row k at buf[f * m + k], m rows):
//   atom   : x y z vx vy vz fx fy fz pe vir type ix iy iz id [rx0 ry0 rz0]   (atom_row_width)
//   ghost  : x y z type id                                                   (kGhostRow)
// Integers travel as doubles: exact below 2^53 (ids are checked against that where they enter).
#pragma once
#include <cstdint>

#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/md/box.hpp"
#include "tessera/md/particles.hpp"

namespace tessera::md {

constexpr int kAtomRow = 16;  // + 3 with MSD references
constexpr int kGhostRow = 5;
inline int atom_row_width(bool msd) { return kAtomRow + (msd ? 3 : 0); }

// Scratch kept between rebuilds (CUB temporary storage, the selected count, sort keys).
struct MigrateScratch {
  Buffer<unsigned char> tmp;
  Buffer<int> count;
  Buffer<uint64_t> key, key_sorted;
  Buffer<int> iota, order;
};

// Wrap the owned atoms' positions into the box (image counts follow).
void wrap_owned(const exec::Exec& ex, Particles& p, const Box& box);

// Ownership along one axis: rank coordinate c of x is floor((x - lo) / L * dims), clamped to [0, dims)
// (a walled axis keeps atoms marginally outside with the end ranks).
struct AxisSplit {
  int axis = 0;
  double lo = 0, L = 1;
  int dims = 1, me = 0;
  bool periodic = true;
};
// code[i] for owned atom i: 0 stays, 1 goes to the low neighbour, 2 to the high one, 3 is further away
// than one sub-box (an error the caller reports).
void mark_leavers(const exec::Exec& ex, Particles& p, const AxisSplit& s, unsigned char* code);
// code[i] for i in [0, n) (owned, then the ghosts received so far): bit 0 set when x_axis < lo_edge,
// bit 1 when x_axis >= hi_edge.
void mark_faces(const exec::Exec& ex, Particles& p, int64_t n, int axis, double lo_edge, double hi_edge,
                unsigned char* code);
// The largest code[i] over [0, n) (0 when n == 0).
int max_code(const exec::Exec& ex, const unsigned char* code, int64_t n);
// Indices i in [0, n) with (code[i] & mask) == value, increasing, into out; returns their number (the
// only host synchronisation: the count is needed to size the messages).
int64_t select_code(const exec::Exec& ex, const unsigned char* code, int64_t n, unsigned char mask,
                    unsigned char value, int* out, MigrateScratch& s);
// k (<= 4) such selections at once, with one host synchronisation for all their counts: out[j] receives
// the indices with (code & mask[j]) == value[j], count[j] their number. Each out[j] must hold n entries.
void select_codes(const exec::Exec& ex, const unsigned char* code, int64_t n, int k, const unsigned char* mask,
                  const unsigned char* value, int* const* out, int64_t* count, MigrateScratch& s);

// Atom rows of p[idx[k]], k < m, into buf (atom layout; with msd the MSD references too). msd is the
// run's setting, not p.has_reference(): a rank with no atoms must agree on the row width.
void pack_atoms(const exec::Exec& ex, Particles& p, const int* idx, int64_t m, bool msd, double* buf);
// dst[i] = src[sel[i]] for i < nsel, then the m1 rows of r1 and the m2 rows of r2 (atom layout). dst must
// hold nsel + m1 + m2 owned entries (and, with msd, MSD references of that length).
void gather_atoms(const exec::Exec& ex, Particles& src, const int* sel, int64_t nsel, const double* r1, int64_t m1,
                  const double* r2, int64_t m2, bool msd, Particles& dst);
// dst[i] = src[order[i]], i < n.
void gather_values(const exec::Exec& ex, const double* src, const int* order, int64_t n, double* dst);

// order[0..n) = the owned atoms sorted by (cell of `lb` with nc cells per axis, id) -- a function of the
// set of atoms, not of their memory order. id_bits: enough bits for every id.
void cell_id_order(const exec::Exec& ex, Particles& p, const Box& lb, const int nc[3], int id_bits, int* order,
                   MigrateScratch& s);

// Ghost rows (x + shift, type, id) of p[idx[k]], k < m, into buf (ghost layout).
void pack_ghosts(const exec::Exec& ex, Particles& p, const int* idx, int64_t m, const double shift[3], double* buf);
// Ghosts [first, first + m) from buf (ghost layout); their velocities, forces and images are zeroed.
void unpack_ghosts(const exec::Exec& ex, Particles& p, int64_t first, int64_t m, const double* buf);

}  // namespace tessera::md
