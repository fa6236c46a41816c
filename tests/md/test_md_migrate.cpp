// The device-resident pieces of a decomposed md rebuild (kernels/md migrate.hpp) against plain references
// on random inputs: the compaction keeps exactly the marked indices in order, the (cell, id) order equals
// a comparison sort (one-pass 64-bit key and the two-pass fallback), and atoms packed into messages and
// gathered back reproduce every per-particle array. Then the GPU against the host, bit for bit.
#include <algorithm>
#include <numeric>
#include <random>
#include <tuple>

#include "catch_compat.hpp"
#include "tessera/md/migrate.hpp"

using namespace tessera;
using namespace tessera::md;

namespace {

// n random atoms in [0, 10)^3 (a few outside, as after a drift), unique shuffled sparse ids.
HostParticles random_atoms(int64_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.5, 10.5), v(-1, 1);
  HostParticles h;
  h.resize(n);
  h.mass = {1.0, 2.0};
  std::vector<int64_t> ids(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) ids[std::size_t(i)] = i * 7919 + 3;
  std::shuffle(ids.begin(), ids.end(), rng);
  for (int64_t i = 0; i < n; ++i) {
    const auto k = std::size_t(i);
    h.x[k] = u(rng), h.y[k] = u(rng), h.z[k] = u(rng);
    h.vx[k] = v(rng), h.vy[k] = v(rng), h.vz[k] = v(rng);
    h.type[k] = int(rng() % 2);
    h.ix[k] = int(rng() % 7) - 3, h.iy[k] = int(rng() % 7) - 3, h.iz[k] = int(rng() % 7) - 3;
    h.id[k] = ids[k];
  }
  return h;
}

template <class T>
std::vector<T> down(const Buffer<T>& b, int64_t n) {
  std::vector<T> h(static_cast<std::size_t>(n));
  if (n > 0) copy_n(h.data(), MemKind::Host, b.data(), b.kind(), h.size());
  return h;
}

struct Outcome {
  std::vector<unsigned char> code;
  std::vector<int> low, kept;
  std::vector<std::vector<int>> multi;  // select_codes: low, kept, high, bit 1 set
  std::vector<int> order_one, order_two;
  std::vector<double> gx, gvx, gfx, grx0;
  std::vector<int> gtype, gix;
  std::vector<int64_t> gid;
};

// Runs the pieces in `space` on the atoms of h (MSD references = positions + 100).
Outcome run(exec::Space space, const HostParticles& h) {
  const exec::Exec ex(space);
  const MemKind mk = default_memkind(space);
  const int64_t n = h.size();
  Particles p(space, n, h.mass);
  p.upload(h);
  for (auto* b : {&p.rx0, &p.ry0, &p.rz0}) *b = Buffer<double>(std::size_t(n), mk, "test");
  std::vector<double> r(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) r[std::size_t(i)] = h.x[std::size_t(i)] + 100;
  for (auto* b : {&p.rx0, &p.ry0, &p.rz0}) copy_n(b->data(), mk, r.data(), MemKind::Host, r.size());
  // Forces/pe/vir: something recognisable.
  std::vector<double> f(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) f[std::size_t(i)] = 0.5 * double(i) - 3;
  for (auto* b : {&p.fx, &p.fy, &p.fz, &p.pe, &p.vir}) copy_n(b->data(), mk, f.data(), MemKind::Host, f.size());

  MigrateScratch s;
  Buffer<unsigned char> code(std::size_t(n), mk, "test");
  AxisSplit sp;
  sp.axis = 1, sp.lo = 0, sp.L = 10, sp.dims = 4, sp.me = 2, sp.periodic = true;
  mark_leavers(ex, p, sp, code.data());
  Outcome o;
  o.code = down(code, n);
  Buffer<int> sel(std::size_t(n), mk, "test");
  const int64_t nlow = select_code(ex, code.data(), n, 0xff, 1, sel.data(), s);
  o.low = down(sel, nlow);
  const int64_t nkeep = select_code(ex, code.data(), n, 0xff, 0, sel.data(), s);
  o.kept = down(sel, nkeep);
  // The same three selections at once (one synchronisation), and a mask selection (bit 1 of the code).
  Buffer<int> three(std::size_t(4 * std::max<int64_t>(n, 1)), mk, "test");
  const unsigned char masks[4] = {0xff, 0xff, 0xff, 2}, values[4] = {1, 0, 2, 2};
  int* const outs[4] = {three.data(), three.data() + n, three.data() + 2 * n, three.data() + 3 * n};
  int64_t cnt[4];
  select_codes(ex, code.data(), n, 4, masks, values, outs, cnt, s);
  const std::vector<int> all = down(three, 4 * n);
  for (int j = 0; j < 4; ++j)
    o.multi.emplace_back(all.begin() + j * n, all.begin() + j * n + cnt[j]);

  // Pack the low-bound atoms, then gather kept + that message (twice, as if from both neighbours).
  Buffer<int> lowidx(std::size_t(std::max<int64_t>(nlow, 1)), mk, "test");
  if (nlow > 0) copy_n(lowidx.data(), mk, o.low.data(), MemKind::Host, o.low.size());
  const int w = atom_row_width(true);
  Buffer<double> msg(std::size_t(std::max<int64_t>(w * nlow, 1)), mk, "test");
  pack_atoms(ex, p, lowidx.data(), nlow, true, msg.data());
  Particles d(space, 0, h.mass);
  const int64_t nd = nkeep + 2 * nlow;
  d.set_counts(nd, 0);
  for (auto* b : {&d.rx0, &d.ry0, &d.rz0}) *b = Buffer<double>(std::size_t(nd), mk, "test");
  gather_atoms(ex, p, sel.data(), nkeep, msg.data(), nlow, msg.data(), nlow, true, d);
  exec::fence(ex);
  o.gx = down(d.x, nd), o.gvx = down(d.vz, nd), o.gfx = down(d.fz, nd), o.grx0 = down(d.rz0, nd);
  o.gtype = down(d.type, nd), o.gix = down(d.iz, nd), o.gid = down(d.id, nd);

  Box lb;
  lb.L[0] = lb.L[1] = lb.L[2] = 10;
  const int nc[3] = {7, 5, 6};
  Buffer<int> order(std::size_t(n), mk, "test");
  cell_id_order(ex, p, lb, nc, 41, order.data(), s);  // 8 cell bits + 41 id bits: one 64-bit key
  o.order_one = down(order, n);
  cell_id_order(ex, p, lb, nc, 60, order.data(), s);  // 8 + 60 > 64: ids, then cells
  o.order_two = down(order, n);
  return o;
}

int cell_of(double v, int nc) {
  const int c = int(v / 10.0 * nc);
  return c < 0 ? 0 : (c < nc ? c : nc - 1);
}

}  // namespace

TEST_CASE("md migration pieces equal plain references on the host", "[md][migrate]") {
  const HostParticles h = random_atoms(5000, 17u);
  const Outcome o = run(exec::Space::Host, h);
  const auto n = std::size_t(h.size());
  // Marks: coordinate c = floor(y / 10 * 4) clamped; rank 2 of 4 keeps 2, sends 1 low, 3 high, 0 is two away.
  std::vector<int> low, kept;
  for (std::size_t i = 0; i < n; ++i) {
    int c = int(std::floor(h.y[i] / 10 * 4));
    c = std::clamp(c, 0, 3);
    const unsigned char want = c == 2 ? 0 : c == 1 ? 1 : c == 3 ? 2 : 3;
    REQUIRE(o.code[i] == want);
    if (want == 1) low.push_back(int(i));
    if (want == 0) kept.push_back(int(i));
  }
  CHECK(o.low == low);
  CHECK(o.kept == kept);
  CHECK(!low.empty());
  std::vector<int> high, bit1;
  for (std::size_t i = 0; i < n; ++i) {
    if (o.code[i] == 2) high.push_back(int(i));
    if (o.code[i] & 2) bit1.push_back(int(i));
  }
  REQUIRE(o.multi.size() == 4);
  CHECK(o.multi[0] == low);
  CHECK(o.multi[1] == kept);
  CHECK(o.multi[2] == high);
  CHECK(o.multi[3] == bit1);
  CHECK(bit1.size() > high.size());  // code 3 (two sub-boxes away) has bit 1 too
  // Gathered: kept atoms, then the low-bound ones twice, every array carried.
  std::vector<int> src = kept;
  src.insert(src.end(), low.begin(), low.end());
  src.insert(src.end(), low.begin(), low.end());
  REQUIRE(o.gid.size() == src.size());
  bool same = true;
  for (std::size_t k = 0; k < src.size(); ++k) {
    const auto j = std::size_t(src[k]);
    same = same && o.gx[k] == h.x[j] && o.gvx[k] == h.vz[j] && o.gfx[k] == 0.5 * double(j) - 3 &&
           o.grx0[k] == h.x[j] + 100 && o.gtype[k] == h.type[j] && o.gix[k] == h.iz[j] && o.gid[k] == h.id[j];
  }
  CHECK(same);
  // (cell, id) order.
  const int nc[3] = {7, 5, 6};
  std::vector<std::tuple<int, int64_t, int>> ref;
  for (std::size_t i = 0; i < n; ++i)
    ref.emplace_back((cell_of(h.z[i], nc[2]) * nc[1] + cell_of(h.y[i], nc[1])) * nc[0] + cell_of(h.x[i], nc[0]), h.id[i],
                     int(i));
  std::sort(ref.begin(), ref.end());
  std::vector<int> want(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = std::get<2>(ref[i]);
  CHECK(o.order_one == want);
  CHECK(o.order_two == want);
}

TEST_CASE("md migration pieces: the GPU equals the host bit for bit", "[md][migrate][gpu]") {
  TESSERA_GPU_TEST();
  for (int64_t n : {int64_t(1), int64_t(777), int64_t(200000)}) {
    INFO("atoms " << n);
    const HostParticles h = random_atoms(n, 5u + unsigned(n));
    const Outcome a = run(exec::Space::Host, h), b = run(exec::Space::Device, h);
    CHECK(a.code == b.code);
    CHECK(a.low == b.low);
    CHECK(a.kept == b.kept);
    CHECK(a.multi == b.multi);
    CHECK(a.gx == b.gx);
    CHECK(a.gvx == b.gvx);
    CHECK(a.gfx == b.gfx);
    CHECK(a.grx0 == b.grx0);
    CHECK(a.gtype == b.gtype);
    CHECK(a.gix == b.gix);
    CHECK(a.gid == b.gid);
    CHECK(a.order_one == b.order_one);
    CHECK(a.order_two == b.order_two);
  }
}
