// Per-atom bond lists (see bond_list.hpp).
#include "tessera/md/bond_list.hpp"

#include <algorithm>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera::md {

BondList::BondList(exec::Space space, const std::vector<Bond>& bonds, const std::vector<BondParam>& params,
                   const HostParticles& p)
    : nbonds_(int64_t(bonds.size())), stride_(p.size()), h_params_(params) {
  const int64_t n = p.size();
  int64_t max_id = -1;
  for (int64_t i = 0; i < n; ++i) max_id = std::max(max_id, p.id[std::size_t(i)]);
  std::vector<int> index(std::size_t(max_id + 1), -1);
  for (int64_t i = 0; i < n; ++i) index[std::size_t(p.id[std::size_t(i)])] = int(i);
  std::vector<int> nb(std::size_t(n), 0);
  for (const Bond& b : bonds) {
    for (int64_t idv : {b.a, b.b})
      if (idv < 0 || idv > max_id || index[std::size_t(idv)] < 0)
        TESSERA_THROW("bond " + std::to_string(b.a) + "-" + std::to_string(b.b) + " names atom id " +
                      std::to_string(idv) + " that does not exist");
    TESSERA_REQUIRE(b.a != b.b, "a bond needs two different atoms");
    TESSERA_REQUIRE(b.type >= 0 && b.type < int(params.size()), "bond type out of range (types are 0-based)");
    ++nb[std::size_t(index[std::size_t(b.a)])];
    ++nb[std::size_t(index[std::size_t(b.b)])];
  }
  maxb_ = nb.empty() ? 0 : *std::max_element(nb.begin(), nb.end());
  const std::size_t cap = std::size_t(std::max(maxb_, 1)) * std::size_t(n);
  std::vector<int64_t> partner(cap, -1);
  std::vector<int> btype(cap, 0);
  std::fill(nb.begin(), nb.end(), 0);
  for (const Bond& b : bonds) {
    const int ia = index[std::size_t(b.a)], ib = index[std::size_t(b.b)];
    int& ka = nb[std::size_t(ia)];
    partner[std::size_t(ka) * std::size_t(n) + std::size_t(ia)] = b.b;
    btype[std::size_t(ka++) * std::size_t(n) + std::size_t(ia)] = b.type;
    int& kb = nb[std::size_t(ib)];
    partner[std::size_t(kb) * std::size_t(n) + std::size_t(ib)] = b.a;
    btype[std::size_t(kb++) * std::size_t(n) + std::size_t(ib)] = b.type;
  }
  const MemKind mk = default_memkind(space);
  partner_ = Buffer<int64_t>(cap, mk, "md::bond_partner");
  btype_ = Buffer<int>(cap, mk, "md::bond_type");
  nbond_ = Buffer<int>(std::size_t(n), mk, "md::nbond");
  index_of_id_ = Buffer<int>(index.size(), mk, "md::index_of_id");
  d_params_ = Buffer<BondParam>(std::max<std::size_t>(params.size(), 1), mk, "md::bond_params");
  copy_n(partner_.data(), mk, partner.data(), MemKind::Host, cap);
  copy_n(btype_.data(), mk, btype.data(), MemKind::Host, cap);
  copy_n(nbond_.data(), mk, nb.data(), MemKind::Host, nb.size());
  copy_n(index_of_id_.data(), mk, index.data(), MemKind::Host, index.size());
  if (!params.empty()) copy_n(d_params_.data(), mk, params.data(), MemKind::Host, params.size());
}

BondView BondList::view() const {
  return BondView{partner_.data(), btype_.data(), nbond_.data(), index_of_id_.data(), d_params_.data(), stride_, maxb_};
}

namespace {
template <class T>
struct GatherStrided {
  const T* src;
  T* dst;
  const int* order;
  int64_t n;
  int m;
  TESSERA_HD void operator()(int64_t i) const {
    for (int k = 0; k < m; ++k) dst[int64_t(k) * n + i] = src[int64_t(k) * n + order[i]];
  }
};
struct IndexOfId {
  const int64_t* id;
  int* index;
  TESSERA_HD void operator()(int64_t i) const { index[id[i]] = int(i); }
};
}  // namespace

void BondList::permute(const exec::Exec& ex, const int* order, const int64_t* ids, int64_t n) {
  if (nbonds_ == 0) return;
  TESSERA_REQUIRE(n == stride_, "bond list and particles differ in size");
  Buffer<int64_t> p2(partner_.size(), partner_.kind(), "md::bond_partner");
  Buffer<int> t2(btype_.size(), btype_.kind(), "md::bond_type");
  Buffer<int> n2(nbond_.size(), nbond_.kind(), "md::nbond");
  exec::parallel_for(ex, "md::bond_permute", n, GatherStrided<int64_t>{partner_.data(), p2.data(), order, n, maxb_});
  exec::parallel_for(ex, "md::bond_permute", n, GatherStrided<int>{btype_.data(), t2.data(), order, n, maxb_});
  exec::parallel_for(ex, "md::bond_permute", n, GatherStrided<int>{nbond_.data(), n2.data(), order, n, 1});
  exec::parallel_for(ex, "md::index_of_id", n, IndexOfId{ids, index_of_id_.data()});
  exec::fence(ex);
  partner_ = std::move(p2);
  btype_ = std::move(t2);
  nbond_ = std::move(n2);
}

}  // namespace tessera::md
