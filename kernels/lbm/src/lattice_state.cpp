// LatticeState: allocation and the dispatching entry points of the LBM kernels.
#include <algorithm>
#include <cctype>
#include <string>

#include "lattice_ops.hpp"
#include "tessera/core/knob.hpp"
#include "wall_stage.hpp"
#include "tessera/core/error.hpp"

namespace tessera::lbm {

namespace {
std::string lower(const char* s) {
  std::string r(s ? s : "");
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  return r;
}
}  // namespace

const char* to_string(LatticeKind k) {
  switch (k) {
    case LatticeKind::D2Q9: return "D2Q9";
    case LatticeKind::D3Q19: return "D3Q19";
    case LatticeKind::D3Q27: return "D3Q27";
  }
  return "?";
}
LatticeKind parse_lattice(const char* s) {
  const std::string v = lower(s);
  if (v == "d2q9") return LatticeKind::D2Q9;
  if (v == "d3q19") return LatticeKind::D3Q19;
  if (v == "d3q27") return LatticeKind::D3Q27;
  TESSERA_THROW("unknown lattice '" + std::string(s) + "': use D2Q9, D3Q19 or D3Q27");
}
const char* to_string(Precision p) {
  switch (p) {
    case Precision::FP64: return "fp64";
    case Precision::FP32: return "fp32";
    case Precision::FP16: return "fp16";
  }
  return "?";
}
Precision parse_precision(const char* s) {
  const std::string v = lower(s);
  if (v == "fp64" || v == "double") return Precision::FP64;
  if (v == "fp32" || v == "float") return Precision::FP32;
  if (v == "fp16" || v == "half") return Precision::FP16;
  TESSERA_THROW("unknown precision '" + std::string(s) + "': use fp64, fp32 or fp16");
}
const char* to_string(CollisionKind k) {
  switch (k) {
    case CollisionKind::BGK: return "bgk";
    case CollisionKind::TRT: return "trt";
    case CollisionKind::Regularized: return "regularized";
  }
  return "?";
}
CollisionKind parse_collision(const char* s) {
  const std::string v = lower(s);
  if (v == "bgk") return CollisionKind::BGK;
  if (v == "trt") return CollisionKind::TRT;
  if (v == "regularized" || v == "rbgk") return CollisionKind::Regularized;
  TESSERA_THROW("unknown collision model '" + std::string(s) + "': use bgk, trt or regularized");
}

LatticeState::LatticeState(LatticeKind lattice, Precision precision, GridLayout grid, exec::Space space)
    : LatticeState(lattice, precision, grid, space, default_memkind(space)) {}

LatticeState::LatticeState(LatticeKind lattice, Precision precision, GridLayout grid, exec::Space space,
                           MemKind mk)
    : lattice_(lattice), precision_(precision), grid_(grid), space_(space) {
  TESSERA_REQUIRE(grid.nx > 0 && grid.ny > 0 && grid.nz > 0, "lattice extents must be positive");
  TESSERA_REQUIRE((lattice_dim(lattice) == 2) == (grid.gz == 0), "a 2-D lattice needs gz = 0, a 3-D one gz = 1");
  TESSERA_REQUIRE(grid.gz == 1 || grid.nz == 1, "a 2-D lattice has nz = 1");
  // The kernels of `space` must be able to touch the memory: device runs need device or managed memory,
  // host runs host-visible memory (host, pinned or managed).
  TESSERA_REQUIRE(space == exec::Space::Device ? (mk == MemKind::Device || mk == MemKind::Managed)
                                               : mk != MemKind::Device,
                  std::string("LatticeState: ") + to_string(mk) + " memory cannot be used by a " +
                      exec::to_string(space) + " run (device runs: device or managed; host runs: host, pinned or "
                      "managed)");
  const std::size_t n = std::size_t(grid.cells());
  pops_ = Buffer<unsigned char>(n * std::size_t(q()) * std::size_t(precision_bytes(precision)), mk, "lbm::populations");
  flags_ = Buffer<uint8_t>(n, mk, "lbm::flags");
  flags_.zero();
  pops_.zero();
}

float* LatticeState::force_field() {
  if (force_.empty()) {
    force_ = Buffer<float>(3 * std::size_t(grid_.cells()), pops_.kind(), "lbm::force");
    force_.zero();
    if (force_.kind() == MemKind::Managed && space_ == exec::Space::Device) {
      force_.advise(MemAdvice::PreferDevice);
      force_.advise(MemAdvice::AccessedByDevice);
      force_.prefetch(exec::Space::Device);
    }
  }
  return force_.data();
}

void LatticeState::prefer_device(const exec::Exec& ex) {
  if (pops_.kind() != MemKind::Managed || !ex.on_device()) return;
  for (auto* b : {&pops_, &flags_}) {
    b->advise(MemAdvice::PreferDevice);
    b->advise(MemAdvice::AccessedByDevice);
    b->prefetch(exec::Space::Device, ex.stream);
  }
  if (!force_.empty()) {
    force_.advise(MemAdvice::PreferDevice);
    force_.advise(MemAdvice::AccessedByDevice);
    force_.prefetch(exec::Space::Device, ex.stream);
  }
}

namespace detail {
const LatticeOps& ops(LatticeKind k) {
  switch (k) {
    case LatticeKind::D2Q9: return ops_d2q9();
    case LatticeKind::D3Q19: return ops_d3q19();
    case LatticeKind::D3Q27: return ops_d3q27();
  }
  TESSERA_THROW("unknown lattice kind");
}
}  // namespace detail

void init_equilibrium(const exec::Exec& ex, LatticeState& s, const float* rho, const float* u) {
  detail::ops(s.lattice()).init(ex, s, rho, u);
  s.parity = 0;
  s.step = 0;
}

void stream_collide(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, KernelPath path) {
  TESSERA_REQUIRE(p.omega > 0.0 && p.omega < 2.0, "relaxation rate omega = 1/tau must lie in (0, 2)");
  if (path == KernelPath::Tuned) {
    TESSERA_REQUIRE(!p.open.active, "the tuned LBM kernel has no open boundaries (velocity inlet / pressure outlet): "
                                    "use the reference kernel (numerics.kernel: reference)");
    detail::tuned_step(ex, s, p);
  }
  else
    detail::ops(s.lattice()).step(ex, s, p);
  end_step(s);
}

void stream_collide_pairs(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, int64_t pairs,
                          unsigned periodic) {
  TESSERA_REQUIRE(pairs >= 0, "stream_collide_pairs: a negative number of step pairs");
  TESSERA_REQUIRE(periodic < 8u && (periodic == 0u || pairs <= 1),
                  "stream_collide_pairs: periodic axes take one pair per call (the reverse exchange follows each pair)");
  if (pairs == 0) return;
  TESSERA_REQUIRE(p.omega > 0.0 && p.omega < 2.0, "relaxation rate omega = 1/tau must lie in (0, 2)");
  TESSERA_REQUIRE(!p.open.active, "the fused LBM steps have no open boundaries: use stream_collide");
  detail::tuned_fused_steps(ex, s, p, pairs, periodic);
  for (int64_t i = 0; i < 2 * pairs; ++i) end_step(s);
}

void stream_collide_two(const exec::Exec& ex, LatticeState& s, const CollisionParams& p) { stream_collide_pairs(ex, s, p, 1); }

bool fused_steps_available(const LatticeState& s, const CollisionParams& p) {
  return s.space() == exec::Space::Device && p.smagorinsky == 0.0 && !p.open.active &&
         detail::tuned_fused_applicable(s, p);
}

FusedSteps fused_steps_mode() {
  return FusedSteps(knob_choice("TESSERA_LBM_FUSED", {"off", "on", "auto"}, "auto", "auto"));
}

std::array<int, 3> fused_steps_shape(const LatticeState& s) {
  const int lag = detail::fused_lag(s);
  (void)detail::fused_signal_form();  // a bad TESSERA_LBM_FUSED_FENCE, _XFACE, _EVEN or _BLOCKS is refused here too
  (void)detail::fused_xface_early();
  (void)detail::fused_even_quad();
  (void)detail::fused_blocks();
  return {detail::fused_rows(s, lag), lag, detail::fused_pairs_per_launch()};
}

std::string fused_steps_form(const LatticeState& s) {
  return detail::fused_even_quad_used(s, 0u) ? "fused-quad-even" : "fused-pair";
}

void stream_pattern_only(const exec::Exec& ex, LatticeState& s, bool blocked, const CollisionParams* collide) {
  TESSERA_REQUIRE(ex.on_device() && tuned_available(s.lattice(), s.precision()),
                  "stream_pattern_only measures the tuned CUDA kernel's access pattern: a GPU run of a 3-D lattice "
                  "in fp32 or fp16 storage");
  if (collide)
    TESSERA_REQUIRE(collide->kind == CollisionKind::BGK && collide->smagorinsky == 0.0 && collide->force[0] == 0.0 &&
                        collide->force[1] == 0.0 && collide->force[2] == 0.0 && !s.force_field_or_null(),
                    "stream_pattern_only with a collision: BGK without LES and without any force");
  detail::tuned_pattern_step(ex, s, blocked, collide);
  end_step(s);
}

void stream_collide_box(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, const CellBox& box,
                        KernelPath path) {
  TESSERA_REQUIRE(p.omega > 0.0 && p.omega < 2.0, "relaxation rate omega = 1/tau must lie in (0, 2)");
  const GridLayout& g = s.grid();
  TESSERA_REQUIRE(box.lo[0] >= 0 && box.lo[1] >= 0 && box.lo[2] >= 0 && box.hi[0] <= g.nx && box.hi[1] <= g.ny &&
                      box.hi[2] <= g.nz,
                  "stream_collide_box: the box must lie inside the rank's interior cells");
  if (box.empty()) return;
  // The whole box (a rank with nothing to exchange): the plain launch, exactly the tuned one.
  const bool whole = box.lo[0] == 0 && box.lo[1] == 0 && box.lo[2] == 0 && box.hi[0] == g.nx && box.hi[1] == g.ny &&
                     box.hi[2] == g.nz;
  if (path == KernelPath::Tuned) {
    TESSERA_REQUIRE(!p.open.active, "the tuned LBM kernel has no open boundaries (velocity inlet / pressure outlet): "
                                    "use the reference kernel (numerics.kernel: reference)");
    whole ? detail::tuned_step(ex, s, p) : detail::tuned_step_box(ex, s, p, box);
  } else {
    whole ? detail::ops(s.lattice()).step(ex, s, p) : detail::ops(s.lattice()).step_box(ex, s, p, box);
  }
}

void end_step(LatticeState& s) {
  s.parity ^= 1;
  ++s.step;
}

void compute_moments(const exec::Exec& ex, const LatticeState& s, const CollisionParams& p, float* rho, float* u) {
  detail::ops(s.lattice()).moments(ex, s, p, rho, u);
}

std::array<double, 6> wall_force(const exec::Exec& ex, const LatticeState& s, const CollisionParams& p,
                                 const int64_t lo[3], int wall_id) {
  TESSERA_REQUIRE(wall_id >= 0 && wall_id < kMaxWallIds, "wall_force: wall id out of range");
  return detail::ops(s.lattice()).force(ex, s, p, lo, wall_id);
}

std::vector<double> read_slots(const LatticeState& s) {
  std::vector<double> v;
  detail::ops(s.lattice()).read(s, v);
  return v;
}
void write_slots(LatticeState& s, const std::vector<double>& f) { detail::ops(s.lattice()).write(s, f); }

std::vector<uint8_t> read_flags(const LatticeState& s) {
  std::vector<uint8_t> v(std::size_t(s.grid().cells()));
  copy_n(v.data(), MemKind::Host, s.flags(), s.memkind(), v.size());
  return v;
}
namespace {
// Sets kNoWallNeighbour on the interior fluid cells that have no wall among their lattice neighbours
// (ghost cells included as neighbours), and the face (flags.hpp, flag_face) of the interior plain fluid
// cells whose wall neighbours are exactly their neighbours at x_a - 1 or x_a + 1, all of one wall id;
// clears them everywhere else. Returns the number of face cells.
template <class L>
int64_t mark_derived_bits(const GridLayout& g, std::vector<uint8_t>& fl) {
  for (auto& f : fl) f = geometry_flag(f);
  int64_t faces = 0;
#pragma omp parallel for schedule(static) reduction(+ : faces)  // a billion-cell grid: seconds, not a minute
  for (int64_t k = 0; k < g.nz; ++k)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k);
        if (flag_kind(fl[std::size_t(c)]) != kFluid) continue;
        uint32_t walls = 0;  // bit q: link q comes from a wall
        int id = -1;         // their wall id, if there is one; -2 if there are several
        for (int q = 1; q < L::Q; ++q) {
          const uint8_t w = fl[std::size_t(c - g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2)))];
          if (flag_kind(w) != kWall) continue;
          walls |= 1u << q;
          id = id == -1 || id == flag_wall_id(w) ? flag_wall_id(w) : -2;
        }
        uint8_t& f = fl[std::size_t(c)];
        if (walls == 0) {
          f = uint8_t(f | kNoWallNeighbour);
          continue;
        }
        if constexpr (L::D == 3) {  // the tuned kernels that stream face cells are 3-D
          if (id < 0) continue;
          for (int face = 1; face <= 6; ++face)
            if (walls == face_links<L>(face)) {
              f = with_face(f, face);
              ++faces;
            }
        }
      }
  return faces;
}
}  // namespace

void write_flags(LatticeState& s, const std::vector<uint8_t>& flags) {
  TESSERA_REQUIRE(flags.size() == std::size_t(s.grid().cells()), "write_flags: expected one flag per padded cell");
  std::vector<uint8_t> marked = flags;
  int64_t faces = 0;
  switch (s.lattice()) {
    case LatticeKind::D2Q9: faces = mark_derived_bits<D2Q9>(s.grid(), marked); break;
    case LatticeKind::D3Q19: faces = mark_derived_bits<D3Q19>(s.grid(), marked); break;
    case LatticeKind::D3Q27: faces = mark_derived_bits<D3Q27>(s.grid(), marked); break;
  }
  copy_n(s.flags(), s.memkind(), marked.data(), MemKind::Host, marked.size());
  s.flags_written(faces);
}

namespace detail {
namespace {
template <class L>
std::vector<StageLink> stage_links_t(const GridLayout& g, const std::vector<uint8_t>& fl, std::size_t max_links,
                                     bool skip_faces) {
  // Planes in parallel, each into its own list (in cell order), then gathered by q below.
  std::vector<std::vector<StageLink>> per(std::size_t(g.nz));
  std::size_t total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
  for (int64_t k = 0; k < g.nz; ++k) {
    auto& out = per[std::size_t(k)];
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k);
        const uint8_t f = fl[std::size_t(c)];
        if (flag_kind(f) != kFluid || (f & kStreamFree)) continue;
        if (skip_faces && flag_face(f) != 0) continue;
        bool first = true;
        for (int q = 1; q < L::Q; ++q) {
          const uint8_t w = fl[std::size_t(c - g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2)))];
          if (flag_kind(w) != kWall) continue;
          out.push_back(StageLink::make(c, f, first, flag_wall_id(w), q));
          first = false;
        }
      }
    total += out.size();
  }
  std::vector<StageLink> all;
  if (total > max_links) return all;
  // By direction, then cell: a warp's links share q (the per-link work branches on it) and, on the faces
  // normal to y and z, lie side by side in memory.
  all.reserve(total);
  for (int q = 1; q < L::Q; ++q)
    for (const auto& v : per)
      for (const StageLink& k : v)
        if (k.q() == q) all.push_back(k);
  return all;
}
}  // namespace

std::vector<StageLink> stage_links(LatticeKind lattice, const GridLayout& g, const std::vector<uint8_t>& flags,
                                   std::size_t max_links, bool skip_faces) {
  TESSERA_REQUIRE(flags.size() == std::size_t(g.cells()), "stage_links: expected one flag per padded cell");
  switch (lattice) {
    case LatticeKind::D2Q9: return stage_links_t<D2Q9>(g, flags, max_links, skip_faces);
    case LatticeKind::D3Q19: return stage_links_t<D3Q19>(g, flags, max_links, skip_faces);
    case LatticeKind::D3Q27: return stage_links_t<D3Q27>(g, flags, max_links, skip_faces);
  }
  return {};
}
}  // namespace detail

}  // namespace tessera::lbm
