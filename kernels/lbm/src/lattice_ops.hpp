// Internal: per-lattice function tables. Each lattice is instantiated in its own translation unit
// (lattice_d2q9.cpp, ...) so that nvcc compiles them in parallel and a change to one stays cheap.
#pragma once
#include "tessera/lbm/lattice_state.hpp"

namespace tessera::lbm::detail {

struct LatticeOps {
  void (*init)(const exec::Exec&, LatticeState&, const float*, const float*);
  void (*step)(const exec::Exec&, LatticeState&, const CollisionParams&);
  void (*step_box)(const exec::Exec&, LatticeState&, const CollisionParams&, const CellBox&);  // parity unchanged
  void (*moments)(const exec::Exec&, const LatticeState&, const CollisionParams&, float*, float*);
  void (*read)(const LatticeState&, std::vector<double>&);
  void (*write)(LatticeState&, const std::vector<double>&);
  std::array<double, 6> (*force)(const exec::Exec&, const LatticeState&, const CollisionParams&, const int64_t*, int);
};

const LatticeOps& ops_d2q9();
const LatticeOps& ops_d3q19();
const LatticeOps& ops_d3q27();
const LatticeOps& ops(LatticeKind k);

// Whether a step has a force (a uniform one or a per-cell field), and whether the tuned kernels keep the
// force terms: when it has one, when the Smagorinsky model is on (the force-free form leaves it out), or
// with TESSERA_LBM_FORCE_TERMS=1 (measurement, tests); otherwise they run the force-free collision
// (collide_cell<..., false>).
bool has_force(const LatticeState& s, const CollisionParams& p);
bool tuned_force_terms(const LatticeState& s, const CollisionParams& p);
// Tuned CUDA path (tuned_cuda.cpp); throws in builds without CUDA. Its odd steps stage the links from
// walls in the walls' slots (wall_stage.hpp) where wall_stage_wanted(): TESSERA_LBM_WALL_STAGE (read at
// every step) on or off, unset or auto for D3Q19 with fp16 storage only; other values are refused.
void tuned_step(const exec::Exec& ex, LatticeState& s, const CollisionParams& p);
bool wall_stage_wanted(LatticeKind lattice, Precision precision);
// Whether the odd steps take the face cells (flag_face, flags.hpp) in the kernels' face forms (the one-cell
// kernel streams them with their links from the wall from their own slots, the pair kernel takes their
// walls from their own flags) and the staged links leave them out: TESSERA_LBM_FACE_CELLS (read at every
// step) unset, "" or on, s a D3Q19 lattice with face cells and TESSERA_LBM_WALL_WARP not uniform; off: no;
// other values are refused. face_cells_flagged: the same for any 3-D lattice (the fused steps' odd items,
// whose pair kernel takes the face cells' walls from their flags for D3Q27 too: no staging to agree with).
bool face_cells_streamed(const LatticeState& s);
bool face_cells_flagged(const LatticeState& s);
// TESSERA_LBM_WALL_WARP=uniform (tuned_cuda.cpp): the one-cell kernel's odd step in one pass per warp.
bool wall_warp_uniform();
// How many odd steps the tuned kernels have run in their face forms (the one-cell kernel's, the pair
// kernel's), in this process (tests: that they ran); note_face_launch counts one.
int64_t face_kernel_launches();
void note_face_launch();
// The same kernel's arithmetic over a sub-box of cells (overlap of the halo exchange); parity unchanged.
void tuned_step_box(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const CellBox& box);
// The two-cells-per-thread kernel (tuned_pair_cuda.cpp) for a whole-box BGK step (by default for D3Q19
// with fp32 storage; TESSERA_LBM_PAIR=on|off|auto): false (nothing launched) where it is not selected or does not
// apply (odd nx, 2-D, fp64, 2^32 or more padded cells), and tuned_step then runs the one-cell kernel.
bool tuned_pair_applicable(const LatticeState& s);
// Whether the tuned kernels' 32-bit cell indices (within one slot array, tuned_slot.hpp) cover grid g:
// fewer than 2^32 padded cells, with room for a plane and a row of link offsets and the pair kernel's
// alignment on either side (kSlotReach). Q x cells may exceed 2^32.
inline bool tuned_index32_fits(const GridLayout& g) {
  return uint64_t(g.cells()) + 2 * uint64_t(g.px() * g.py() + g.px()) + 512 < (uint64_t(1) << 32);
}
// Whether tuned_pair_step runs the pair kernel for s with this collision (selected and applicable).
bool tuned_pair_used(const LatticeState& s, CollisionKind kind);
// The four-cells-per-thread kernel for even steps (tuned_quad_kernel.hpp, launched by tuned_pair_step in
// place of the pair or one-cell kernel; TESSERA_LBM_QUAD=on|off|auto, unset: auto = fp16 storage and D3Q19
// fp32): for BGK where the pair kernel applies and the slot stride is a multiple of 4.
bool tuned_quad_applicable(const LatticeState& s);
bool tuned_quad_used(const LatticeState& s, CollisionKind kind);
// Whether the odd steps of a quad case take the quad kernel too (rows of a multiple of 4 cells, px % 4 == 0;
// TESSERA_LBM_QUAD_ODD=on|off|auto, unset: auto = off: it measured level with the pair kernel for D3Q19
// fp32 in the periodic box and slower in every other case, docs/performance.md, LBM item 17); otherwise
// they keep the pair or one-cell kernel.
bool tuned_quad_odd_used(const LatticeState& s, CollisionKind kind);
// Whether the quad kernel's force-free even steps run its staged form (by default with fp16 storage;
// TESSERA_LBM_QUAD=on|staged|staged16 chooses).
bool tuned_quad_staged_used(const LatticeState& s, CollisionKind kind);
bool tuned_pair_step(const exec::Exec& ex, LatticeState& s, const CollisionParams& p);
// The fused steps (tuned_fused_cuda.cpp, stream_collide_pairs): whether they apply, and `pairs` step pairs
// (parity 0, left unflipped). fused_rows / fused_lag: the slab height and the planes the even step runs
// ahead; fused_pairs_per_launch: the most pairs one launch takes (TESSERA_LBM_FUSED_PAIRS); fused_signal_form:
// how a block signals (TESSERA_LBM_FUSED_FENCE: 0 one fence after the barrier, 1 every thread's).
bool tuned_fused_applicable(const LatticeState& s, const CollisionParams& p);
void tuned_fused_steps(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, int64_t pairs, unsigned per);
int fused_rows(const LatticeState& s, int lag);
int fused_lag(const LatticeState& s, unsigned per = 0u);  // per: the periodic axes (z periodic: a longer lag)
int fused_pairs_per_launch();
int fused_signal_form();
bool fused_xface_early();
bool fused_even_quad();  // TESSERA_LBM_FUSED_EVEN: quad (the default: the even items' quad step in fp16) or pair
// Whether the fused steps' even items take the quad step for s with periodic axes per (0: none).
bool fused_even_quad_used(const LatticeState& s, unsigned per);
int fused_blocks();  // TESSERA_LBM_FUSED_BLOCKS: 5, 6 (the default) or 7 (the D3Q19 fp16 quad-even launch bounds)
// The one-cell kernel's loads and stores without the collision (stream_pattern_only).
void tuned_pattern_step(const exec::Exec& ex, LatticeState& s, bool blocked, const CollisionParams* collide);

}  // namespace tessera::lbm::detail
