// A streaming 64-bit hash for checkpoint payloads: the XXH64 algorithm (Yann Collet, xxHash
// specification "XXH64", github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md), implemented here
// from the specification. Not cryptographic: it detects truncation, bit rot and torn writes.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::io {

class Hash64 {
 public:
  explicit Hash64(uint64_t seed = 0);
  void update(const void* data, std::size_t bytes);
  void update(std::string_view s) { update(s.data(), s.size()); }
  template <class T>
  void update_value(const T& v) { update(&v, sizeof(T)); }
  uint64_t digest() const;  // does not change the state; more updates may follow

 private:
  uint64_t seed_;
  std::array<uint64_t, 4> acc_;
  std::array<unsigned char, 32> buf_{};
  std::size_t buffered_ = 0;
  uint64_t total_ = 0;
};

uint64_t hash64(const void* data, std::size_t bytes, uint64_t seed = 0);
std::string to_hex(uint64_t h);  // 16 lower-case hex digits

}  // namespace tessera::io
