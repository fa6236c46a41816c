// Unit tests of the io building blocks: XXH64 against the reference vectors, streaming == one shot,
// selection arithmetic, Base64 (RFC 4648 test vectors), atomic replacement.
#include <filesystem>
#include <fstream>
#include <cstring>
#include <numeric>
#include <sstream>

#include "catch_compat.hpp"
#include "tessera/core/error.hpp"
#include "tessera/io/atomic_file.hpp"
#include "tessera/io/grid.hpp"
#include "tessera/io/hash64.hpp"
#include "tessera/io/vtk_xml.hpp"
#include "tessera/io/xdmf.hpp"

using namespace tessera::io;

TEST_CASE("hash64: XXH64 reference values", "[io][hash]") {
  // Values published with the xxHash reference implementation (seed 0).
  CHECK(hash64("", 0) == 0xEF46DB3751D8E999ULL);
  CHECK(hash64("a", 1) == 0xD24EC4F1A98C6E5BULL);
  CHECK(hash64("abc", 3) == 0x44BC2CF5AD770999ULL);
  CHECK(to_hex(0xEF46DB3751D8E999ULL) == "ef46db3751d8e999");
}

TEST_CASE("hash64: streaming in any pieces equals one shot; any changed bit changes the hash", "[io][hash]") {
  std::vector<unsigned char> data(1000);
  std::iota(data.begin(), data.end(), 7);
  for (std::size_t len : {0u, 1u, 3u, 4u, 8u, 31u, 32u, 33u, 63u, 64u, 100u, 1000u}) {
    const uint64_t one = hash64(data.data(), len);
    for (std::size_t piece : {1u, 5u, 13u, 32u, 40u}) {
      Hash64 h;
      for (std::size_t o = 0; o < len; o += piece) h.update(data.data() + o, std::min(piece, len - o));
      REQUIRE(h.digest() == one);
    }
  }
  const uint64_t ref = hash64(data.data(), data.size());
  for (std::size_t byte : {0u, 31u, 500u, 999u}) {
    auto flipped = data;
    flipped[byte] ^= 0x10;
    CHECK(hash64(flipped.data(), flipped.size()) != ref);
  }
  CHECK(hash64(data.data(), data.size(), 1) != ref);  // the seed matters
}

TEST_CASE("selection: sub-box, stride and slice arithmetic", "[io][selection]") {
  const GridGeometry g{{10, 8, 6}, {1.0, 2.0, 3.0}, {0.5, 0.25, 2.0}};
  ResolvedSelection s = resolve(Selection{{1, 0, 2}, {10, 8, 6}, {3, 2, 1}}, g);
  CHECK(s.out_cells == Index3{3, 4, 4});  // x: 1,4,7; y: 0,2,4,6; z: 2..5
  CHECK(s.out_origin[0] == 1.5);
  CHECK(s.out_spacing[0] == 1.5);
  CHECK(s.out_origin[2] == 7.0);
  // A rank owning x in [3, 8): selected x = 4, 7 -> output 1..2, first local index 1.
  OutputBlock b = output_block(s, LocalBox{{3, 0, 0}, {5, 8, 6}});
  CHECK(b.out_offset[0] == 1);
  CHECK(b.out_count[0] == 2);
  CHECK(b.first_local[0] == 1);
  CHECK(b.out_count[2] == 4);
  // A rank owning x in [2, 4) holds no selected x (1, 4, 7): an empty block.
  CHECK(output_block(s, LocalBox{{2, 0, 0}, {2, 8, 6}}).num_cells() == 0);
  ResolvedSelection sl = resolve(Selection::slice(2, 5), g);
  CHECK(sl.out_cells == Index3{10, 8, 1});
  CHECK(sl.out_origin[2] == 13.0);
  CHECK(output_block(sl, LocalBox{{0, 0, 0}, {10, 8, 3}}).num_cells() == 0);
  CHECK(output_block(sl, LocalBox{{0, 0, 3}, {10, 8, 3}}).first_local[2] == 2);
  CHECK_THROWS_AS(resolve(Selection::slice(0, 10), g), tessera::Error);
  CHECK_THROWS_AS(resolve(Selection{{0, 0, 0}, {0, 0, 0}, {0, 1, 1}}, g), tessera::Error);
}

TEST_CASE("base64: RFC 4648 test vectors", "[io][vtk]") {
  const char* in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  const char* out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  for (int i = 0; i < 7; ++i) CHECK(base64_encode(in[i], std::strlen(in[i])) == out[i]);
}

TEST_CASE("atomic file: replaces content, leaves no temporary", "[io][atomic]") {
  const std::string dir = "io_scratch/atomic";
  std::filesystem::remove_all(dir);
  make_dirs(dir);
  write_file_atomic(dir + "/a.txt", "first");
  write_file_atomic(dir + "/a.txt", "second");
  std::ifstream is(dir + "/a.txt");
  std::stringstream ss;
  ss << is.rdbuf();
  CHECK(ss.str() == "second");
  CHECK(!std::filesystem::exists(dir + "/a.txt.tmp"));
  CHECK(parent_dir("x/y/z.h5") == "x/y");
  CHECK(parent_dir("z.h5") == ".");
  CHECK(base_name("x/y/z.h5") == "z.h5");
}

TEST_CASE("xdmf: grid series lists steps with z-y-x dimensions and cell-centred attributes", "[io][xdmf]") {
  XdmfGridStep s;
  s.step = 7;
  s.time = 0.5;
  s.h5_file = "run_00000007.h5";
  s.grid = GridGeometry{{4, 3, 2}, {0, 0, 0}, {1, 2, 3}};
  s.fields = {{"rho", "1", 1, Precision::Float32}, {"u", "m/s", 3, Precision::Float64}};
  const std::string x = xdmf_grid_series({s});
  CHECK(x.find("Dimensions=\"3 4 5\"") != std::string::npos);  // points: cells + 1, z first
  CHECK(x.find(">3 2 1</DataItem>") != std::string::npos);       // spacing z y x
  CHECK(x.find("Dimensions=\"2 3 4 3\" NumberType=\"Float\" Precision=\"8\"") != std::string::npos);
  CHECK(x.find("run_00000007.h5:/fields/rho") != std::string::npos);
  CHECK(x.find("<Time Value=\"0.5\"/>") != std::string::npos);
  CHECK(xml_escape("a<b&\"c\"") == "a&lt;b&amp;&quot;c&quot;");
}
