// Halo exchange: every ghost cell holds its owner's value after an exchange (periodic images wrapped),
// ghosts beyond a wall and (faces-only mode) edges/corners keep their poison. Host back end here;
// "[gpu]" cases run the same checks with device and managed fields and both MPI transports.
#include <mpi.h>

#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/domain/gather.hpp"
#include "tessera/domain/halo_exchange.hpp"
#include "transports.hpp"

using namespace tessera;
using namespace tessera::domain;

namespace {

struct Case {
  Int3 global;
  std::array<bool, 3> periodic;
  int ghost;
  bool faces_only = false;
  int width = -1;  // exchange width (-1: the ghost width)
  std::array<int, 3> dims{0, 0, 0};
};

template <class T>
constexpr T kPoison = T(-3);

// Value of global cell p, global component q, in exchange round `round`: unique per cell and
// component, exactly representable in float for these sizes.
template <class T>
T encode(Int3 p, int q, Int3 N, int round) {
  return T(1 + p.x + N.x * (p.y + N.y * (p.z + N.z * int64_t(q))) + 100000 * round);
}

// Fill the interior of every field with encode(); ghosts with poison (first round only).
template <class T>
void fill(const Decomposition& d, std::vector<Field<T>>& fields, int round) {
  int q0 = 0;
  for (auto& f : fields) {
    std::vector<T> h = f.to_host();
    FieldView<T> v{h.data(), f.extent(), f.ghost(), f.view().sy, f.view().sz, f.view().sc, f.ncomp()};
    for (int c = 0; c < f.ncomp(); ++c) {
      for_each_cell(v.allocated(), [&](Int3 p) {
        const bool inside = v.interior().contains(p);
        if (inside) v(p, c) = encode<T>(p + f.box().lo, q0 + c, d.global(), round);
        else if (round == 0) v(p, c) = kPoison<T>;
      });
    }
    f.from_host(h);
    q0 += f.ncomp();
  }
}

// Cells whose value is wrong, with the first one described in `first`.
template <class T>
int64_t count_wrong(const Decomposition& d, const Case& cs, std::vector<Field<T>>& fields, int round,
                    std::string& first) {
  int64_t bad = 0;
  int q0 = 0;
  const Int3 N = d.global();
  for (auto& f : fields) {
    std::vector<T> h = f.to_host();
    FieldView<T> v{h.data(), f.extent(), f.ghost(), f.view().sy, f.view().sz, f.view().sc, f.ncomp()};
    for (int c = 0; c < f.ncomp(); ++c) {
      for_each_cell(v.allocated(), [&](Int3 p) {
        int outside = 0;      // axes along which p is a ghost
        bool untouched = false;
        Int3 g = p + f.box().lo;
        for (int a = 0; a < 3; ++a) {
          if (p[a] >= 0 && p[a] < v.n[a]) continue;
          ++outside;
          const int64_t depth = p[a] < 0 ? -p[a] : p[a] - v.n[a] + 1;
          if (cs.width >= 0 && depth > cs.width) untouched = true;  // beyond the exchanged width
          if (g[a] < 0 || g[a] >= N[a]) {
            if (!d.periodic(a)) untouched = true;  // beyond a wall
            g[a] = (g[a] + N[a]) % N[a];
          }
        }
        if (cs.faces_only && outside >= 2) untouched = true;
        const T expect = untouched ? kPoison<T> : encode<T>(g, q0 + c, N, round);
        if (v(p, c) != expect) {
          if (bad++ == 0)
            first = "field " + f.name() + " comp " + std::to_string(c) + " local " + to_string(p) + " global " +
                    to_string(p + f.box().lo) + ": got " + std::to_string(double(v(p, c))) + ", expected " +
                    std::to_string(double(expect));
        }
      });
    }
    q0 += f.ncomp();
  }
  return bad;
}

// Two rounds through one plan: the second moves new interior values (the plan is reusable).
template <class T>
void run_case(const Case& cs, exec::Space space, MemKind kind, Transport tr) {
  const Decomposition d(MPI_COMM_WORLD, {cs.global, cs.periodic, cs.ghost, cs.dims});
  INFO(d.describe() << (cs.faces_only ? ", faces only" : "") << ", width " << cs.width << ", " << to_string(kind)
                    << " memory, " << to_string(tr));
  std::vector<Field<T>> fields;
  fields.emplace_back(d, 1, kind, -1, "a");
  fields.emplace_back(d, 3, kind, -1, "b");  // several components: one fused message per neighbour
  HaloOptions opt;
  opt.transport = tr;
  opt.faces_only = cs.faces_only;
  opt.width = cs.width;
  opt.exec = exec::Exec(space);
  HaloExchange<T> halo(d, {&fields[0], &fields[1]}, opt);
  if (space == exec::Space::Host) CHECK(halo.transport() == Transport::HostStaged);
  if (space == exec::Space::Device && tr != Transport::Auto) CHECK(halo.transport() == tr);
  for (int round = 0; round < 2; ++round) {
    fill(d, fields, round);
    halo.start();
    CHECK(halo.in_flight());
    halo.finish();
    std::string first;
    const int64_t bad = count_wrong(d, cs, fields, round, first);
    INFO("rank " << d.rank() << " round " << round << " first wrong: " << first);
    CHECK(bad == 0);
  }
}

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {{37, 23, 19}, {true, true, true}, 1},
      {{37, 23, 19}, {false, false, false}, 2},
      {{37, 23, 19}, {true, false, true}, 2},
      {{37, 23, 19}, {false, true, true}, 1, true},           // faces only
      {{37, 23, 19}, {true, true, false}, 2, false, 1},       // ghost 2, exchange only 1 layer
      {{37, 23, 1}, {true, false, false}, 2},                 // 2-D: no z ghosts
      {{37, 23, 1}, {true, true, true}, 1},                   // 2-D, periodic z of one cell
      {{13, 11, 19}, {true, true, true}, 2, false, -1, {1, 1, 0}},  // only z split: x,y periodic self-copies
  };
  return c;
}

}  // namespace

TEST_CASE("halo exchange on the host: ghosts hold their owners' values", "[halo][mpi]") {
  for (const Case& cs : cases()) run_case<double>(cs, exec::Space::Host, MemKind::Host, Transport::HostStaged);
}

TEST_CASE("halo exchange on the host: float and int32 fields", "[halo][mpi]") {
  run_case<float>(cases()[2], exec::Space::Host, MemKind::Host, Transport::HostStaged);
  run_case<int32_t>(cases()[3], exec::Space::Host, MemKind::Host, Transport::HostStaged);
  // Host fields with a CUDA-aware request: served host-staged.
  run_case<double>(cases()[0], exec::Space::Host, MemKind::Host, Transport::CudaAware);
}

TEST_CASE("halo exchange refuses what it cannot do", "[halo][mpi]") {
  const Decomposition d(MPI_COMM_WORLD, {{16, 12, 10}, {true, true, true}, 2});
  Field<double> a(d, 1, MemKind::Host, 2, "a"), b(d, 2, MemKind::Host, 1, "b");
  CHECK_THROWS_AS(HaloExchange<double>(d, {&a, &b}), tessera::Error);  // different ghost widths
  HaloOptions nccl;
  nccl.transport = Transport::Nccl;
  if (nccl_available()) {
    HaloExchange<double> h(d, {&a}, nccl);  // host fields: served through host MPI
    CHECK(h.transport() == Transport::HostStaged);
  } else {
    try {
      HaloExchange<double> h(d, {&a}, nccl);
      FAIL("a build without NCCL should refuse the nccl transport");
    } catch (const tessera::Error& e) {
      CHECK(std::string(e.what()).find("this build has no NCCL") != std::string::npos);
    }
  }
  // An explicit CUDA-aware request on the device without library support is an error; auto falls back.
  if (mpi_cuda_aware())
    CHECK(resolve_transport(Transport::CudaAware, true) == Transport::CudaAware);
  else
    CHECK_THROWS_AS(resolve_transport(Transport::CudaAware, true), tessera::Error);
  HaloOptions wide;
  wide.width = 3;
  CHECK_THROWS_AS(HaloExchange<double>(d, {&a}, wide), tessera::Error);
  HaloExchange<double> h(d, {&a});
  h.start();
  CHECK_THROWS_AS(h.start(), tessera::Error);
  h.finish();
  CHECK_THROWS_AS(h.finish(), tessera::Error);
  CHECK(parse_transport("cuda-aware") == Transport::CudaAware);
  CHECK(parse_transport("cuda_aware") == Transport::CudaAware);
  CHECK(parse_transport("host") == Transport::HostStaged);
  CHECK(parse_transport("NCCL") == Transport::Nccl);
  CHECK(parse_transport("auto") == Transport::Auto);
  CHECK(resolve_transport(Transport::Auto, false, 4) == Transport::HostStaged);
  CHECK(resolve_transport(Transport::Auto, true, 1) == (mpi_cuda_aware() ? Transport::CudaAware : Transport::HostStaged));
  CHECK(resolve_transport(Transport::Auto, true, 2) ==
        (nccl_available() ? Transport::Nccl : mpi_cuda_aware() ? Transport::CudaAware : Transport::HostStaged));
  CHECK_THROWS_AS(parse_transport("carrier-pigeon"), tessera::Error);
}

TEST_CASE("halo exchange on the GPU, every transport this build and MPI offer", "[halo][mpi][gpu]") {
  TESSERA_GPU_TEST();
  device::select_for_local_rank(node_local_rank(MPI_COMM_WORLD));
  for (Transport tr : available_transports())
    for (const Case& cs : cases()) run_case<double>(cs, exec::Space::Device, MemKind::Device, tr);
  run_case<float>(cases()[1], exec::Space::Device, MemKind::Device, Transport::HostStaged);
}

TEST_CASE("halo exchange on the GPU with managed fields", "[halo][mpi][gpu]") {
  TESSERA_GPU_TEST();
  device::select_for_local_rank(node_local_rank(MPI_COMM_WORLD));
  for (const Case& cs : {cases()[0], cases()[3], cases()[7]})
    run_case<double>(cs, exec::Space::Device, MemKind::Managed, Transport::HostStaged);
}

TEST_CASE("scatter and gather: each rank gets its own cells, ghosts untouched, round trip exact", "[gather][mpi]") {
  const Decomposition d(MPI_COMM_WORLD, {{37, 23, 19}, {false, true, false}, 2});
  const Int3 N = d.global();
  const int ncomp = 3;
  std::vector<int32_t> global(size_t(N.product() * ncomp));
  for (int c = 0; c < ncomp; ++c)
    for_each_cell(d.global_box(), [&](Int3 p) {
      global[size_t(p.x + N.x * (p.y + N.y * (p.z + N.z * int64_t(c))))] = encode<int32_t>(p, c, N, 0);
    });
  Field<int32_t> f(d, ncomp, MemKind::Host, -1, "f");
  std::vector<int32_t> h(f.buffer().size(), kPoison<int32_t>);
  f.from_host(h);
  scatter_from_root(d, f, d.rank() == 0 ? global : std::vector<int32_t>{});
  h = f.to_host();
  FieldView<int32_t> v{h.data(), f.extent(), f.ghost(), f.view().sy, f.view().sz, f.view().sc, f.ncomp()};
  int64_t bad = 0;
  for (int c = 0; c < ncomp; ++c)
    for_each_cell(v.allocated(), [&](Int3 p) {
      const int32_t expect = v.interior().contains(p) ? encode<int32_t>(p + f.box().lo, c, N, 0) : kPoison<int32_t>;
      bad += v(p, c) != expect;
    });
  CHECK(bad == 0);
  const std::vector<int32_t> back = gather_to_root(d, f);
  if (d.rank() == 0) CHECK(back == global);
  else CHECK(back.empty());
  // A wrong-sized array on the root is refused on every rank (no rank is left waiting in MPI).
  CHECK_THROWS_AS(scatter_from_root(d, f, std::vector<int32_t>(d.rank() == 0 ? 5 : 0)), tessera::Error);
}
