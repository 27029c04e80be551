# Install rules and the exported CMake package (docs/cmake.md).
#
#   <prefix>/bin/slopec
#   <prefix>/lib/libslope_*.a                       the pipeline's static libraries
#   <prefix>/lib/slope/libslope_llvm.so             the LLVM plugin (ptx, host, object targets)
#   <prefix>/include/slope/slope.hpp, slope.h       the embedded C++ and C API
#   <prefix>/include/slope/compiler/driver/...      public headers, in the source layout
#   <prefix>/include/slope/runtime/...
#   <prefix>/lib/cmake/Slope/                       SlopeConfig.cmake, SlopeShaders.cmake, ...
#   <prefix>/lib/pkgconfig/slope.pc
#
# Every path inside the package is relative to the prefix, so the tree can be moved or
# installed with `cmake --install build --prefix DIR` anywhere.
include(CMakePackageConfigHelpers)

set(SLOPE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Slope)
set(SLOPE_INSTALL_PLUGINDIR ${CMAKE_INSTALL_LIBDIR}/slope)

# The static libraries Slope::compiler is made of, in link order (each before the ones
# it uses): slope.pc lists them in this order.
set(SLOPE_COMPILER_LIBS
  slope_api slope_driver slope_target_spirv slope_target_glsl slope_target_cuda slope_target_ctext
  slope_llvm_loader slope_stdlib slope_lower slope_sema slope_parse slope_preprocess
  slope_ast slope_autodiff slope_passes slope_target_layout slope_ir slope_diag
  slope_source slope_base)

# The targets users link, and their names in the package (Slope::compiler,
# Slope::runtime, Slope::llvm_plugin); compiler/ and runtime/ define them.
set_target_properties(slope_compiler PROPERTIES EXPORT_NAME compiler)
set_target_properties(slope_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(slope_llvm PROPERTIES EXPORT_NAME llvm_plugin)
foreach(lib ${SLOPE_COMPILER_LIBS})
  string(REGEX REPLACE "^slope_" "" short ${lib})
  set_target_properties(${lib} PROPERTIES EXPORT_NAME internal_${short})
endforeach()
# A sanitizer build's libraries need the sanitizer runtimes in whatever links them.
if(SLOPE_SANITIZE)
  target_link_options(slope_compiler INTERFACE -fsanitize=${SLOPE_SANITIZE})
  target_link_options(slope_runtime INTERFACE -fsanitize=${SLOPE_SANITIZE})
endif()

install(TARGETS slopec slope_compiler slope_runtime ${SLOPE_COMPILER_LIBS}
  EXPORT SlopeTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The plugin goes where the installed slopec looks for it (compiler/CMakeLists.txt):
# a program linking Slope::compiler finds it next to itself, in ../lib/slope/, or
# through SLOPE_LLVM_PLUGIN; Slope::llvm_plugin names the installed file.
install(TARGETS slope_llvm EXPORT SlopeTargets LIBRARY DESTINATION ${SLOPE_INSTALL_PLUGINDIR})

# The embedded API: <slope/slope.hpp> and <slope/slope.h>, found through <prefix>/include.
install(FILES include/slope/slope.hpp include/slope/slope.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/slope)
# Public headers: the driver's entry point and what it includes, and the runtime's
# device API. They keep the source layout, so "compiler/driver/compile.h" resolves
# against <prefix>/include/slope in an installed tree as it does in the source tree.
install(FILES compiler/driver/compile.h compiler/driver/reflection.h
              compiler/driver/reflection_json.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/slope/compiler/driver)
install(FILES compiler/lower/bindings.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/slope/compiler/lower)
install(FILES compiler/targets/llvm/cpu_abi.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/slope/compiler/targets/llvm)
install(FILES runtime/core/device.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/slope/runtime/core)
install(FILES runtime/cpu/cpu_device.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/slope/runtime/cpu)
install(FILES runtime/cuda/cuda_device.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/slope/runtime/cuda)
if(SLOPE_ENABLE_VULKAN)
  install(FILES runtime/vulkan/vulkan_device.h
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/slope/runtime/vulkan)
endif()
# The header `-target cuda` output includes (also written by `slopec -emit-cuda-prelude`).
install(FILES compiler/targets/cuda/slope_cuda_prelude.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/slope)

install(EXPORT SlopeTargets NAMESPACE Slope:: DESTINATION ${SLOPE_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/SlopeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/SlopeConfig.cmake
  INSTALL_DESTINATION ${SLOPE_INSTALL_CMAKEDIR} PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/SlopeConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/SlopeConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/SlopeConfigVersion.cmake
              cmake/SlopeShaders.cmake cmake/SlopeEmbed.cmake
        DESTINATION ${SLOPE_INSTALL_CMAKEDIR})

# pkg-config: the same libraries for builds without CMake. The file locates the prefix
# from its own folder (pcfiledir), so it too works from any prefix.
file(RELATIVE_PATH SLOPE_PC_TO_PREFIX
     ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" SLOPE_PC_TO_PREFIX "${SLOPE_PC_TO_PREFIX}")
set(SLOPE_PC_LIBS "")
foreach(lib ${SLOPE_COMPILER_LIBS})
  string(APPEND SLOPE_PC_LIBS " -l${lib}")
endforeach()
set(SLOPE_PC_DL "")
if(SLOPE_SANITIZE)
  string(APPEND SLOPE_PC_DL " -fsanitize=${SLOPE_SANITIZE}")
endif()
foreach(lib ${CMAKE_DL_LIBS})
  string(APPEND SLOPE_PC_DL " -l${lib}")
endforeach()
configure_file(cmake/slope.pc.in ${PROJECT_BINARY_DIR}/cmake/slope.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/slope.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
