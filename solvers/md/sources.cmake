# md solver library sources (plain C++: kernels are launched through Tessera::kernels).
list(APPEND TESSERA_SOLVER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/simulation.cpp)
