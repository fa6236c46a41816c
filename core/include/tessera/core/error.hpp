// Errors: every failure becomes a tessera::Error naming what failed, where, and what to do next.
#pragma once
#include <stdexcept>
#include <string>

namespace tessera {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_error(const std::string& what, const char* file, int line);

}  // namespace tessera

#define TESSERA_THROW(msg) ::tessera::throw_error((msg), __FILE__, __LINE__)
#define TESSERA_REQUIRE(cond, msg)                                      \
  do {                                                                  \
    if (!(cond)) ::tessera::throw_error(std::string("requirement failed: " #cond ": ") + (msg), __FILE__, __LINE__); \
  } while (0)
