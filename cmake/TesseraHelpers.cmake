# Helpers shared by every module's CMakeLists.txt.

# Common compile options for a Tessera target.
function(tessera_target_defaults target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unknown-pragmas>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${TESSERA_WERROR}>>:-Werror>)
  if(TESSERA_SANITIZE)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer>)
    target_link_options(${target} PUBLIC -fsanitize=address,undefined)
  endif()
endfunction()

# Executables of the sanitizer build get ASan defaults (see cmake/sanitizer_defaults.cpp).
function(tessera_sanitizer_defaults target)
  if(TESSERA_SANITIZE)
    target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/cmake/sanitizer_defaults.cpp)
  endif()
endfunction()

# Sources that launch kernels through tessera::exec (one source for both back ends).
# In a CUDA build they are compiled by nvcc as CUDA; in a host build by the C++ compiler.
# Call from the CMakeLists.txt of the directory that defines the target.
function(tessera_kernel_sources)
  if(TESSERA_ENABLE_CUDA)
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
  endif()
endfunction()

# add_library + alias Tessera::<name> + install/export.
function(tessera_add_library name)
  cmake_parse_arguments(A "" "" "SOURCES;KERNEL_SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  tessera_kernel_sources(${A_KERNEL_SOURCES})
  add_library(tessera_${name} ${A_SOURCES} ${A_KERNEL_SOURCES})
  add_library(Tessera::${name} ALIAS tessera_${name})
  set_target_properties(tessera_${name} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME tessera_${name})
  if(TESSERA_ENABLE_CUDA)
    set_target_properties(tessera_${name} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
  endif()
  target_include_directories(tessera_${name} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(tessera_${name} PUBLIC ${A_PUBLIC_DEPS} PRIVATE ${A_PRIVATE_DEPS})
  tessera_target_defaults(tessera_${name})
  install(TARGETS tessera_${name} EXPORT TesseraTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} OPTIONAL)
endfunction()

# An executable of Tessera: lands in <build>/bin and is installed.
function(tessera_add_executable name)
  cmake_parse_arguments(A "" "" "SOURCES;KERNEL_SOURCES;DEPS" ${ARGN})
  tessera_kernel_sources(${A_KERNEL_SOURCES})
  add_executable(${name} ${A_SOURCES} ${A_KERNEL_SOURCES})
  target_link_libraries(${name} PRIVATE ${A_DEPS})
  tessera_target_defaults(${name})
  tessera_sanitizer_defaults(${name})
  install(TARGETS ${name} EXPORT TesseraTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()
