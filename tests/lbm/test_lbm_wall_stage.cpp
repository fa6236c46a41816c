// Wall links staged in the walls' slots (kernels/lbm/src/wall_stage.hpp), on the host: the list the tuned
// path builds, and the staged odd step (stage in, stream every listed cell like one without a wall
// neighbour, stage out) against the wall-checking odd step, every byte of every slot (walls included) and
// every flag. The same for the face cells (flag_face) streamed with their links from the wall from their
// own slots (stream_collide.hpp: aa_load_face, aa_store_face; TESSERA_LBM_FACE_CELLS), alone and with the
// other cells' links staged. On the GPU ([gpu], below) the tuned kernels with TESSERA_LBM_WALL_STAGE=on
// against off, and with TESSERA_LBM_FACE_CELLS=on against off.
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "catch_compat.hpp"
#include "lbm_test_util.hpp"
#include "../../kernels/lbm/src/lattice_impl.hpp"
#include "../../kernels/lbm/src/wall_stage.hpp"

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;
using tessera::lbm::detail::StageLink;

namespace {

constexpr std::size_t kNoCap = ~std::size_t(0);

// Walls on every ghost (id 0; id 1 on the y-max face, which moves in test_params), ~1 in 40 interior cells
// a wall (ids 0-2, ids 1 and 2 move), ~1 in 300 inactive. The moving walls matter in fp16: the staged
// values pass through the storage, as the wall-checking path rounds them (stream_collide.hpp).
std::vector<uint8_t> walled_flags(const GridLayout& g, unsigned seed) { return scattered_flags(g, true, seed, 300, 8, 1); }

std::vector<unsigned char> raw(const LatticeState& s) {
  std::vector<unsigned char> h(std::size_t(s.q()) * std::size_t(s.grid().cells()) *
                               std::size_t(precision_bytes(s.precision())));
  copy_n(h.data(), MemKind::Host, static_cast<const unsigned char*>(s.pops()), s.memkind(), h.size());
  return h;
}

// One odd step with the staged links: in, the reference step (it streams kWallStaged cells like
// kNoWallNeighbour ones: stream_collide.hpp), out. Returns the flags seen between in and out.
template <class L, class S, class Step>
std::vector<uint8_t> staged_odd_step(LatticeState& s, const CollisionParams& p, const std::vector<StageLink>& links,
                                     Step step) {
  std::vector<S> save(links.size());
  S* f = static_cast<S*>(s.pops());
  for (std::size_t t = 0; t < links.size(); ++t)
    lbm::detail::stage_link<L, S, true>(f, s.flags(), s.grid(), p.walls, links[t], &save[t]);
  const std::vector<uint8_t> during = read_flags(s);
  step();
  for (std::size_t t = 0; t < links.size(); ++t)
    lbm::detail::stage_link<L, S, false>(f, s.flags(), s.grid(), p.walls, links[t], &save[t]);
  return during;
}

template <class L>
void check_list(const GridLayout& g, const std::vector<uint8_t>& fl, const std::vector<StageLink>& links,
                bool skip_faces = false) {
  // Every listed link comes from a wall with that id, of a plain fluid cell with a wall neighbour, ordered
  // by q and then by cell, the link of least q of each cell marked first.
  std::map<int64_t, int> per_cell;
  std::map<int64_t, int> least_q;
  int64_t prev = -1;
  int prev_q = 0;
  for (const StageLink& k : links) {
    const int64_t c = k.cell();
    const int q = k.q();
    REQUIRE(q >= 1);
    REQUIRE(q < L::Q);
    const uint8_t w = fl[std::size_t(c - g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2)))];
    REQUIRE(flag_kind(w) == kWall);
    REQUIRE(k.wall_flag() == make_wall(flag_wall_id(w)));
    REQUIRE(k.cell_flag() == fl[std::size_t(c)]);
    REQUIRE(flag_kind(fl[std::size_t(c)]) == kFluid);
    REQUIRE((q > prev_q || (q == prev_q && c > prev)));
    REQUIRE(k.first() == !least_q.count(c));
    least_q.emplace(c, q);
    prev = c;
    prev_q = q;
    ++per_cell[c];
  }
  // Every cell with a wall neighbour is there with all its wall links.
  int64_t eligible = 0;
  for (int64_t kz = 0; kz < g.nz; ++kz)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, kz);
        if (flag_kind(fl[std::size_t(c)]) != kFluid) continue;
        int walls = 0;
        for (int q = 1; q < L::Q; ++q)
          walls += flag_kind(fl[std::size_t(c - g.offset(L::c(q, 0), L::c(q, 1), L::c(q, 2)))]) == kWall;
        const auto it = per_cell.find(c);
        if (walls == 0 || (skip_faces && flag_face(fl[std::size_t(c)]) != 0)) {
          REQUIRE(it == per_cell.end());
        } else {
          REQUIRE(it != per_cell.end());
          REQUIRE(it->second == walls);
          ++eligible;
        }
      }
  CHECK(eligible > 0);
}

// The same flags and random populations on each state: the reference and the form under test.
template <class L>
void same_start(const GridLayout& g, const std::vector<uint8_t>& flags, std::initializer_list<LatticeState*> states) {
  for (LatticeState* s : states) {
    write_flags(*s, flags);
    write_slots(*s, random_pops<L>(g, 9));
  }
}

template <class L, class S>
void staged_equals_reference(Precision pr, CollisionKind ck) {
  const GridLayout g = grid_for(L::kind, 21, 12, 9);
  const std::vector<uint8_t> fl0 = walled_flags(g, 5);
  const exec::Exec ex(exec::Space::Host);
  const CollisionParams p = test_params(ck);
  LatticeState ref(L::kind, pr, g, exec::Space::Host), stg(L::kind, pr, g, exec::Space::Host);
  same_start<L>(g, fl0, {&ref, &stg});
  const std::vector<uint8_t> fl = read_flags(ref);  // with kNoWallNeighbour
  const std::vector<StageLink> links = lbm::detail::stage_links(L::kind, g, fl, kNoCap);
  check_list<L>(g, fl, links);
  REQUIRE(lbm::detail::stage_links(L::kind, g, fl, links.size()).size() == links.size());  // at the cap: all
  REQUIRE(lbm::detail::stage_links(L::kind, g, fl, links.size() - 1).empty());  // over the cap: none
  for (int t = 0; t < 6; ++t) {
    INFO("step " << t);
    const bool odd = stg.parity == 1;
    stream_collide(ex, ref, p, KernelPath::Reference);
    if (odd) {
      const std::vector<uint8_t> during =
          staged_odd_step<L, S>(stg, p, links, [&] { stream_collide(ex, stg, p, KernelPath::Reference); });
      for (std::size_t c = 0; c < fl.size(); ++c)  // kWallStaged on exactly the listed cells
        REQUIRE(during[c] == uint8_t(fl[c] | ((during[c] & kWallStaged) ? kWallStaged : 0)));
      std::set<int64_t> cells;
      for (const StageLink& k : links) cells.insert(k.cell());
      std::size_t marked = 0;
      for (std::size_t c = 0; c < fl.size(); ++c) marked += (during[c] & kWallStaged) != 0;
      REQUIRE(marked == cells.size());
      for (int64_t c : cells) REQUIRE((during[std::size_t(c)] & kWallStaged) != 0);
    } else {
      stream_collide(ex, stg, p, KernelPath::Reference);
    }
    REQUIRE(raw(stg) == raw(ref));  // every byte, the walls' slots included
    REQUIRE(read_flags(stg) == fl);
  }
}

// Walls on the faces normal to x with ids 3 (x - 1; id 5 on every fifth row) and 4 (x + 1), all moving
// (face_params), the other ghosts (id 1, moving, on the y + 1 face; id 0 elsewhere) and the scattered
// interior walls as walled_flags: face cells on all six faces, x-face cells next to two wall ids (no
// face), and wall-adjacent cells of every other kind.
std::vector<uint8_t> face_flags(const GridLayout& g, unsigned seed) {
  std::vector<uint8_t> fl = walled_flags(g, seed);
  for (int64_t k = 0; k < g.pz(); ++k)
    for (int64_t j = 0; j < g.py(); ++j) {
      fl[std::size_t(g.px() * (j + g.py() * k))] = make_wall(j % 5 == 0 ? 5 : 3);
      fl[std::size_t(g.px() - 1 + g.px() * (j + g.py() * k))] = make_wall(4);
    }
  return fl;
}
CollisionParams face_params(CollisionKind ck) {
  CollisionParams p = test_params(ck);
  p.walls.u[3][0] = 0.01f;  // not physical (a wall moving through itself), but every term is nonzero
  p.walls.u[3][1] = -0.04f;
  p.walls.u[3][2] = 0.02f;
  p.walls.u[4][1] = 0.03f;
  p.walls.u[4][2] = -0.05f;
  p.walls.u[5][1] = 0.06f;
  return p;
}

// The odd step as the tuned one-cell kernel takes it with TESSERA_LBM_FACE_CELLS=on: the face cells (not
// staged) through aa_load_face, the collision and aa_store_face, every other fluid cell as the
// reference's update_cell. Returns how many cells took the face form.
template <class L, class S, CollisionKind K>
int64_t face_odd_step(LatticeState& s, const CollisionParams& p) {
  using A = typename Storage<S>::Real;
  REQUIRE(s.parity == 1);
  const GridLayout& g = s.grid();
  const StepArgs<A> a = lbm::detail::make_step_args<A>(s, p);
  S* f = static_cast<S*>(s.pops());
  const uint8_t* fl = s.flags();
  int64_t x = 0;
  for (int64_t k = 0; k < g.nz; ++k)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k);
        if (!is_fluid(fl[c])) continue;
        if (flag_face(fl[c]) != 0 && !(fl[c] & kStreamFree)) {
          A fq[L::Q];
          aa_load_face<L, S, A>(f, fl, g, p.walls, c, fq);
          collide_cell<L, K, A>(a, c, fq);
          aa_store_face<L, S, A>(f, fl, g, p.walls, c, fq);
          ++x;
        } else {
          update_cell<L, S, K, A>(f, fl, a, p.walls, c);
        }
      }
  s.parity = 0;
  ++s.step;
  return x;
}

// Six steps of the reference against the same with the odd steps as face_odd_step, the other cells'
// wall links staged or not: every byte (walls' slots included) and every flag after each step.
template <class L, class S, CollisionKind K>
void face_equals_reference(Precision pr, bool staged) {
  const GridLayout g = grid_for(L::kind, 21, 12, 9);
  const std::vector<uint8_t> fl0 = face_flags(g, 5);
  const exec::Exec ex(exec::Space::Host);
  const CollisionParams p = face_params(K);
  LatticeState ref(L::kind, pr, g, exec::Space::Host), fc(L::kind, pr, g, exec::Space::Host);
  same_start<L>(g, fl0, {&ref, &fc});
  const std::vector<uint8_t> fl = read_flags(ref);
  int64_t per_face[7] = {0, 0, 0, 0, 0, 0, 0};
  for (uint8_t f : fl) ++per_face[flag_face(f)];
  for (int face = 1; face <= 6; ++face) REQUIRE(per_face[face] > 0);
  REQUIRE(per_face[1] + per_face[2] + per_face[3] + per_face[4] + per_face[5] + per_face[6] == fc.face_cells());
  const std::vector<StageLink> links =
      staged ? lbm::detail::stage_links(L::kind, g, fl, kNoCap, true) : std::vector<StageLink>{};
  if (staged) {
    check_list<L>(g, fl, links, true);
    REQUIRE(links.size() < lbm::detail::stage_links(L::kind, g, fl, kNoCap).size());
  }
  for (int t = 0; t < 6; ++t) {
    INFO("step " << t);
    const bool odd = fc.parity == 1;
    stream_collide(ex, ref, p, KernelPath::Reference);
    if (odd) {
      int64_t streamed = 0;
      staged_odd_step<L, S>(fc, p, links, [&] { streamed = face_odd_step<L, S, K>(fc, p); });
      REQUIRE(streamed == fc.face_cells());
    } else {
      stream_collide(ex, fc, p, KernelPath::Reference);
    }
    REQUIRE(raw(fc) == raw(ref));
    REQUIRE(read_flags(fc) == fl);
  }
}

}  // namespace

TEST_CASE("face cells streamed from their own slots give the wall-checking step's bytes", "[lbm]") {
  for (bool staged : {false, true})
    for (CollisionKind ck : {CollisionKind::BGK, CollisionKind::TRT}) {
      INFO(to_string(ck) << (staged ? ", other cells staged" : ""));
      if (ck == CollisionKind::BGK) {
        face_equals_reference<D3Q19, float, CollisionKind::BGK>(Precision::FP32, staged);
        face_equals_reference<D3Q19, half_t, CollisionKind::BGK>(Precision::FP16, staged);
        face_equals_reference<D3Q27, float, CollisionKind::BGK>(Precision::FP32, staged);
        face_equals_reference<D3Q27, half_t, CollisionKind::BGK>(Precision::FP16, staged);
      } else {
        face_equals_reference<D3Q19, float, CollisionKind::TRT>(Precision::FP32, staged);
        face_equals_reference<D3Q19, half_t, CollisionKind::TRT>(Precision::FP16, staged);
        face_equals_reference<D3Q27, float, CollisionKind::TRT>(Precision::FP32, staged);
        face_equals_reference<D3Q27, half_t, CollisionKind::TRT>(Precision::FP16, staged);
      }
    }
}

TEST_CASE("staged wall links: the list", "[lbm]") {
  const GridLayout g = grid_for(LatticeKind::D3Q27, 17, 10, 8);
  const std::vector<uint8_t> raw_flags = walled_flags(g, 7);
  LatticeState s(LatticeKind::D3Q27, Precision::FP32, g, exec::Space::Host);
  write_flags(s, raw_flags);
  const std::vector<uint8_t> fl = read_flags(s);
  check_list<D3Q27>(g, fl, lbm::detail::stage_links(LatticeKind::D3Q27, g, fl, kNoCap));
  // A StageLink keeps what it was given.
  const StageLink k = StageLink::make((int64_t(1) << 40) + 3, 0x3d, true, 13, 26);
  CHECK(k.cell() == (int64_t(1) << 40) + 3);
  CHECK(k.cell_flag() == 0x3d);
  CHECK(k.first());
  CHECK(k.wall_flag() == make_wall(13));
  CHECK(k.q() == 26);
}

TEST_CASE("staged wall links: the odd step gives the wall-checking step's bytes", "[lbm]") {
  for (CollisionKind ck : {CollisionKind::BGK, CollisionKind::TRT}) {
    INFO(to_string(ck));
    staged_equals_reference<D3Q19, float>(Precision::FP32, ck);
    staged_equals_reference<D3Q19, half_t>(Precision::FP16, ck);
    staged_equals_reference<D3Q27, float>(Precision::FP32, ck);
    staged_equals_reference<D3Q27, half_t>(Precision::FP16, ck);
  }
}

// With TESSERA_LBM_WALL_STAGE=on odd steps stage the links from walls in the walls' slots
// (wall_stage.hpp); with off they take the wall-checking paths. Every byte of every slot (walls included)
// and every flag must be the same after each run, for every kernel form that takes odd steps, and the
// staging must have run (links listed; the y-max face and interior walls of ids 1 and 2 move). The
// default (auto) stages D3Q19 with fp16 storage only. TESSERA_LBM_FACE_CELLS=on (with the staging on and
// off) must give the same bytes again; a face form must have run where the defaults have one (the
// force-free BGK odd step of D3Q19: the one-cell kernel's for fp16, the pair kernel's for fp32) and the
// staged list must have left the face cells out (D3Q19 only).
TEST_CASE("staged wall links give the wall-checking kernels' bytes", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  struct Case {
    int64_t nx, ny, nz;
    bool ghost_walls;
  };
  using tessera::test::ScopedEnv;
  struct Form {
    const char* name;
    std::vector<std::pair<const char*, const char*>> env;
  };
  const Form forms[] = {{"default", {}},
                        {"pair", {{"TESSERA_LBM_PAIR", "on"}, {"TESSERA_LBM_QUAD", "off"}}},
                        {"one-cell", {{"TESSERA_LBM_PAIR", "off"}, {"TESSERA_LBM_QUAD", "off"}}},
                        {"one-cell 64-bit", {{"TESSERA_LBM_PAIR", "off"}, {"TESSERA_LBM_INDEX", "64"}}},
                        {"quad odd", {{"TESSERA_LBM_QUAD", "on"}, {"TESSERA_LBM_QUAD_ODD", "on"}}},
                        {"speculate", {{"TESSERA_LBM_SPECULATE", "on"}}},
                        {"patch", {{"TESSERA_LBM_SPECULATE", "patch"}}},
                        {"uniform wall warps", {{"TESSERA_LBM_WALL_WARP", "uniform"}}},
                        {"force terms", {{"TESSERA_LBM_FORCE_TERMS", "1"}}}};
  const Case cases[] = {{70, 9, 7, true}, {62, 6, 5, false}, {37, 8, 5, true}, {64, 24, 12, true}};
  struct Out {
    std::vector<unsigned char> pops;
    std::vector<uint8_t> flags;
    int64_t links = 0, face_cells = 0, face_launches = 0;
  };
  auto go = [](LatticeKind k, Precision pr, CollisionKind ck, const Case& cs, bool forced, int steps) {
    const GridLayout g = grid_for(k, cs.nx, cs.ny, cs.nz);
    LatticeState s(k, pr, g, exec::Space::Device);
    write_flags(s, scattered_flags(g, cs.ghost_walls, 41, 600, 4, 2));
    write_slots(s, k == LatticeKind::D3Q19 ? random_pops<D3Q19>(g, 42) : random_pops<D3Q27>(g, 42));
    CollisionParams p = test_params(ck);
    if (!forced) p.force[0] = p.force[1] = p.force[2] = 0.0;
    const exec::Exec ex(exec::Space::Device);
    const int64_t launches = lbm::detail::face_kernel_launches();
    for (int t = 0; t < steps; ++t) stream_collide(ex, s, p, KernelPath::Tuned);
    exec::fence(ex);
    Out o;
    o.face_cells = s.face_cells();
    o.face_launches = lbm::detail::face_kernel_launches() - launches;
    o.pops.resize(std::size_t(s.q()) * std::size_t(g.cells()) * std::size_t(precision_bytes(pr)));
    copy_n(o.pops.data(), MemKind::Host, static_cast<const unsigned char*>(s.pops()), s.memkind(), o.pops.size());
    o.flags = read_flags(s);
    o.links = s.wall_stage().count;
    return o;
  };
  int64_t compared = 0;
  for (const Form& fm : forms) {
    std::vector<std::unique_ptr<ScopedEnv>> env;
    for (const auto& [n, v] : fm.env) env.push_back(std::make_unique<ScopedEnv>(n, v));
    for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
      for (Precision pr : {Precision::FP32, Precision::FP16})
        for (CollisionKind ck : {CollisionKind::BGK, CollisionKind::TRT})
          for (const Case& cs : cases)
            for (bool forced : {false, true}) {
              INFO(fm.name << " " << to_string(k) << " " << to_string(pr) << " " << to_string(ck) << " nx " << cs.nx
                           << " ny " << cs.ny << " ghost walls " << cs.ghost_walls << " forced " << forced);
              // The face forms of the force-free BGK odd step of D3Q19: the one-cell kernel's (fp16 by
              // default) and the pair kernel's (fp32 by default; the pair kernel needs an even nx, and the
              // one-cell kernel fp32 takes for an odd nx has no face form).
              const bool face_form = k == LatticeKind::D3Q19 && ck == CollisionKind::BGK && !forced &&
                                     (pr == Precision::FP16 || cs.nx % 2 == 0);
              Out on, off, automatic;
              {
                const ScopedEnv fcs("TESSERA_LBM_FACE_CELLS", "off");
                {
                  const ScopedEnv st("TESSERA_LBM_WALL_STAGE", "on");
                  on = go(k, pr, ck, cs, forced, 5);
                }
                {
                  const ScopedEnv st("TESSERA_LBM_WALL_STAGE", "off");
                  off = go(k, pr, ck, cs, forced, 5);
                }
                if (&fm == &forms[0]) {  // the staging's default: auto
                  automatic = go(k, pr, ck, cs, forced, 5);
                  REQUIRE((automatic.links > 0) == (k == LatticeKind::D3Q19 && pr == Precision::FP16));
                  REQUIRE(automatic.pops == off.pops);
                }
              }
              REQUIRE(on.links > 0);
              REQUIRE(off.links == 0);
              REQUIRE(on.flags == off.flags);
              for (uint8_t f : on.flags) REQUIRE((f & kWallStaged) == 0);
              REQUIRE(on.pops == off.pops);
              REQUIRE(on.face_launches == 0);  // TESSERA_LBM_FACE_CELLS=off
              if (&fm == &forms[0]) {  // every knob unset: the face cells are on by default (D3Q19)
                const Out d = go(k, pr, ck, cs, forced, 5);
                REQUIRE((d.face_launches > 0) == (face_form && cs.ghost_walls));
                REQUIRE(d.flags == off.flags);
                REQUIRE(d.pops == off.pops);
              }
              // The face cells streamed by the one-cell kernel, alone and beside the staged links.
              for (const char* stage : {"on", "off"}) {
                INFO("TESSERA_LBM_FACE_CELLS=on, TESSERA_LBM_WALL_STAGE=" << stage);
                const ScopedEnv fcs("TESSERA_LBM_FACE_CELLS", "on"), st("TESSERA_LBM_WALL_STAGE", stage);
                const Out x = go(k, pr, ck, cs, forced, 5);
                REQUIRE(x.face_cells == on.face_cells);
                REQUIRE((x.face_cells > 0) == cs.ghost_walls);
                if (std::string(stage) == "on" && x.face_cells > 0) {  // D3Q19 leaves the face cells out
                  // (not with TESSERA_LBM_WALL_WARP=uniform, whose one-pass warps have no face form)
                  if (k == LatticeKind::D3Q19 && !lbm::detail::wall_warp_uniform()) REQUIRE(x.links < on.links);
                  else REQUIRE(x.links == on.links);
                }
                if (&fm == &forms[0]) REQUIRE((x.face_launches > 0) == (face_form && cs.ghost_walls));
                if (k != LatticeKind::D3Q19) REQUIRE(x.face_launches == 0);
                REQUIRE(x.flags == off.flags);
                REQUIRE(x.pops == off.pops);
              }
              ++compared;
            }
  }
  CHECK(compared == 9 * 2 * 2 * 2 * 4 * 2);
}
