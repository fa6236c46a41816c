// Bonds stored per atom: every bond i-j appears in the lists of i and of j, with the partner named by
// its global id, so a particle sums its bond forces itself (no atomics, fixed order) and the lists
// survive spatial re-sorting. index_of_id maps a global id to the local index (rebuilt after sorting).
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/core/buffer.hpp"
#include "tessera/md/bonds.hpp"
#include "tessera/md/particles.hpp"

namespace tessera::md {

struct Bond {
  int64_t a, b;  // global ids
  int type;
};

struct BondView {
  const int64_t* partner = nullptr;  // [k * n + i]
  const int* btype = nullptr;        // [k * n + i]
  const int* nbond = nullptr;        // [i]
  const int* index_of_id = nullptr;  // [id]
  const BondParam* params = nullptr;
  int64_t stride = 0;
  int max_per_atom = 0;
};

class BondList {
 public:
  BondList() = default;
  // ids of the particles are taken from p; every bond's ids must be present.
  BondList(exec::Space space, const std::vector<Bond>& bonds, const std::vector<BondParam>& params,
           const HostParticles& p);
  bool empty() const { return nbonds_ == 0; }
  int64_t count() const { return nbonds_; }
  BondView view() const;
  // Follow a particle permutation (new[i] = old[order[i]]) and refresh index_of_id from the ids.
  void permute(const exec::Exec& ex, const int* order, const int64_t* ids, int64_t n);
  const std::vector<BondParam>& params() const { return h_params_; }

 private:
  int64_t nbonds_ = 0;
  int64_t stride_ = 0;
  int maxb_ = 0;
  Buffer<int64_t> partner_;
  Buffer<int> btype_, nbond_, index_of_id_;
  std::vector<BondParam> h_params_;
  Buffer<BondParam> d_params_;
};

}  // namespace tessera::md
