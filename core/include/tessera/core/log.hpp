// Minimal logging: rank 0 prints info; every rank prints warnings and errors with its rank.
#pragma once
#include <fmt/format.h>

#include <string>

namespace tessera::log {

enum class Level { Debug = 0, Info = 1, Warn = 2, Error = 3, Quiet = 4 };
void set_level(Level l);
Level level();
void set_rank(int rank);
void write(Level l, const std::string& msg);

template <class... A>
void info(fmt::format_string<A...> f, A&&... a) { write(Level::Info, fmt::format(f, std::forward<A>(a)...)); }
template <class... A>
void warn(fmt::format_string<A...> f, A&&... a) { write(Level::Warn, fmt::format(f, std::forward<A>(a)...)); }
template <class... A>
void error(fmt::format_string<A...> f, A&&... a) { write(Level::Error, fmt::format(f, std::forward<A>(a)...)); }
template <class... A>
void debug(fmt::format_string<A...> f, A&&... a) { write(Level::Debug, fmt::format(f, std::forward<A>(a)...)); }

}  // namespace tessera::log
