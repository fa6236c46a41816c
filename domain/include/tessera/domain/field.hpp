// Field<T>: ncomp components over a rank's box of cells plus a ghost layer, in one Buffer<T>.
//
// Layout: structure of arrays, component-major, x fastest. With interior extent n and ghost width g
// (per axis; 0 along axes that carry no ghosts), the allocated block is (n+2g) cells per axis and
//   index(i,j,k,c) = (i+gx) + sy*(j+gy) + sz*(k+gz) + sc*c,  sy = nx+2gx, sz = sy*(ny+2gy), sc = sz*(nz+2gz)
// with local indices i in [-gx, nx+gx) (interior: [0, nx)). Indices are int64: a rank may hold more
// than 2^31 values. Kernels take a FieldView (pointer + strides, trivially copyable) by value.
#pragma once
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/core/buffer.hpp"
#include "tessera/core/error.hpp"
#include "tessera/domain/box.hpp"
#include "tessera/domain/decomposition.hpp"

namespace tessera::domain {

template <class T>
struct FieldView {
  T* data = nullptr;
  Int3 n{};   // interior cells per axis
  Int3 g{};   // ghost width per axis
  int64_t sy = 0, sz = 0, sc = 0;  // strides of j, k and the component (x stride is 1)
  int ncomp = 0;

  TESSERA_HD int64_t index(int64_t i, int64_t j, int64_t k, int c = 0) const {
    return (i + g.x) + sy * (j + g.y) + sz * (k + g.z) + sc * c;
  }
  TESSERA_HD int64_t index(Int3 p, int c = 0) const { return index(p.x, p.y, p.z, c); }
  TESSERA_HD T& operator()(int64_t i, int64_t j, int64_t k, int c = 0) const { return data[index(i, j, k, c)]; }
  TESSERA_HD T& operator()(Int3 p, int c = 0) const { return data[index(p, c)]; }
  TESSERA_HD T* component(int c) const { return data + sc * c; }
  // A read-only view of the same data (kernels take inputs as FieldView<const T>).
  template <class U = T>
    requires(!std::is_const_v<U>)
  TESSERA_HD operator FieldView<const U>() const { return {data, n, g, sy, sz, sc, ncomp}; }
  // Interior cells [0, n) and the whole allocated block [-g, n+g), in local indices.
  TESSERA_HD Box3 interior() const { return Box3{Int3{0, 0, 0}, n}; }
  TESSERA_HD Box3 allocated() const { return Box3{Int3{0, 0, 0} - g, n + g}; }
};

template <class T>
class Field {
 public:
  Field() = default;
  // A field over this rank's box of `d`, with ghost width `ghost` (-1: the decomposition's width)
  // along the axes that carry ghosts.
  Field(const Decomposition& d, int ncomp, MemKind kind, int ghost = -1, std::string name = "field")
      : Field(d.local_box(), d.ghost_extent(ghost < 0 ? d.ghost() : ghost), ncomp, kind, std::move(name)) {}
  // A field over an explicit box (global indices) with ghost width g per axis.
  Field(const Box3& box, Int3 g, int ncomp, MemKind kind, std::string name = "field")
      : name_(std::move(name)), box_(box), g_(g), ncomp_(ncomp) {
    TESSERA_REQUIRE(ncomp >= 1, "field '" + name_ + "' needs at least one component");
    TESSERA_REQUIRE(!box.empty(), "field '" + name_ + "' has an empty box " + to_string(box));
    TESSERA_REQUIRE(g.x >= 0 && g.y >= 0 && g.z >= 0, "field '" + name_ + "' has a negative ghost width");
    const Int3 a = box.size() + 2 * g;
    sy_ = a.x;
    sz_ = a.x * a.y;
    sc_ = a.x * a.y * a.z;
    buf_ = Buffer<T>(std::size_t(sc_ * ncomp), kind, name_.c_str());
  }

  FieldView<T> view() { return {buf_.data(), box_.size(), g_, sy_, sz_, sc_, ncomp_}; }
  FieldView<const T> view() const { return {buf_.data(), box_.size(), g_, sy_, sz_, sc_, ncomp_}; }

  const std::string& name() const { return name_; }
  int ncomp() const { return ncomp_; }
  Int3 ghost() const { return g_; }
  Int3 extent() const { return box_.size(); }       // interior cells per axis
  const Box3& box() const { return box_; }          // interior, in global indices
  Box3 allocated_local() const { return Box3{Int3{} - g_, box_.size() + g_}; }
  int64_t cells_per_component() const { return sc_; }  // including ghosts
  Buffer<T>& buffer() { return buf_; }
  const Buffer<T>& buffer() const { return buf_; }
  MemKind kind() const { return buf_.kind(); }
  T* data() { return buf_.data(); }
  const T* data() const { return buf_.data(); }

  // Whole allocation (ghosts included) to / from host memory, in the layout described above.
  std::vector<T> to_host() const {
    std::vector<T> h(buf_.size());
    copy_n(h.data(), MemKind::Host, buf_.data(), buf_.kind(), buf_.size());
    return h;
  }
  void from_host(const std::vector<T>& h) {
    TESSERA_REQUIRE(h.size() == buf_.size(), "field '" + name_ + "': host array has the wrong size");
    copy_n(buf_.data(), buf_.kind(), h.data(), MemKind::Host, buf_.size());
  }

 private:
  std::string name_;
  Box3 box_{};
  Int3 g_{};
  int ncomp_ = 0;
  int64_t sy_ = 0, sz_ = 0, sc_ = 0;
  Buffer<T> buf_;
};

}  // namespace tessera::domain
