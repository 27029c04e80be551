# slope_add_shaders: compile .slang files with slopec at build time (docs/cmake.md).
#
#   slope_add_shaders(TARGET name
#                     SOURCES a.slang ...
#                     TARGETS spirv cuda ...
#                     [ENTRY computeMain] [STAGE compute]
#                     [INCLUDE_DIRS dir ...] [DEFINES NAME[=VALUE] ...] [FLAGS flag ...]
#                     [OUTPUT_DIR dir] [EMBED])
#
# Each source x target is one custom command writing OUTPUT_DIR/<stem>.<ext> (spv,
# spv-asm, glsl, cu, ptx, bc, o, ll) with a depfile that slopec writes: editing a file a
# shader #includes or imports rebuilds that shader's outputs and nothing else. With
# EMBED, each output also becomes a header OUTPUT_DIR/include/<name>/<stem>.<ext>.h
# holding its bytes as a constexpr array. `name` is an INTERFACE library: linking it
# builds the shaders first and adds the embedded headers' folder to the include path.
#
# Works from an installed package (find_package(Slope), Slope::slopec) and inside Slope's
# own build (the Slope::slopec alias of the slopec target).
include_guard(GLOBAL)
if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "slope_add_shaders needs CMake 3.20 or later (DEPFILE on every generator)")
endif()
# A function keeps the policies in force where it is defined: slope_add_shaders' custom
# commands get CMP0116's NEW behaviour (Ninja reads depfiles with paths CMake has
# resolved) whatever version the calling project asks for.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20)

set_property(GLOBAL PROPERTY SLOPE_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/SlopeEmbed.cmake)

# The file extension slopec's -target writes, or "" for a target it does not know.
function(_slope_target_extension target out_var)
  set(exts spirv=spv spirv-asm=spv-asm glsl=glsl cuda=cu ptx=ptx host=bc object=o llvm-ir=ll)
  set(ext "")
  foreach(pair ${exts})
    string(REPLACE "=" ";" pair "${pair}")
    list(GET pair 0 name)
    if(name STREQUAL target)
      list(GET pair 1 ext)
    endif()
  endforeach()
  set(${out_var} "${ext}" PARENT_SCOPE)
endfunction()

# A C++ identifier made of `text`: other characters become '_'.
function(_slope_identifier text out_var)
  string(MAKE_C_IDENTIFIER "${text}" id)
  set(${out_var} "${id}" PARENT_SCOPE)
endfunction()

function(slope_add_shaders)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "EMBED" "TARGET;ENTRY;STAGE;OUTPUT_DIR"
                        "SOURCES;TARGETS;INCLUDE_DIRS;DEFINES;FLAGS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "slope_add_shaders: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  foreach(required TARGET SOURCES TARGETS)
    if(NOT ARG_${required})
      message(FATAL_ERROR "slope_add_shaders: ${required} is required")
    endif()
  endforeach()
  if(NOT TARGET Slope::slopec)
    message(FATAL_ERROR "slope_add_shaders: no Slope::slopec target; call find_package(Slope) first")
  endif()
  # Run slopec through the real target's name: the command then depends on the
  # executable, and a new slopec recompiles the shaders.
  get_target_property(slopec Slope::slopec ALIASED_TARGET)
  if(NOT slopec)
    set(slopec Slope::slopec)
  endif()
  get_property(embed_script GLOBAL PROPERTY SLOPE_EMBED_SCRIPT)

  set(out_dir "${ARG_OUTPUT_DIR}")
  if(NOT out_dir)
    set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}")
  endif()
  cmake_path(ABSOLUTE_PATH out_dir BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE)
  set(header_dir "${out_dir}/include")
  _slope_identifier("${ARG_TARGET}" namespace)

  # The flags every compile of this call shares.
  set(common_flags "")
  if(ARG_ENTRY)
    list(APPEND common_flags -entry ${ARG_ENTRY})
  endif()
  if(ARG_STAGE)
    list(APPEND common_flags -stage ${ARG_STAGE})
  endif()
  foreach(dir ${ARG_INCLUDE_DIRS})
    cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    list(APPEND common_flags "-I${dir}")
  endforeach()
  foreach(define ${ARG_DEFINES})
    list(APPEND common_flags "-D${define}")
  endforeach()
  list(APPEND common_flags ${ARG_FLAGS})

  set(outputs "")
  set(headers "")
  set(stems "")
  foreach(source ${ARG_SOURCES})
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    cmake_path(GET source STEM LAST_ONLY stem)
    if(stem IN_LIST stems)
      message(FATAL_ERROR "slope_add_shaders(${ARG_TARGET}): two sources are named ${stem}; "
                          "their outputs would be the same files")
    endif()
    list(APPEND stems ${stem})
    foreach(target ${ARG_TARGETS})
      _slope_target_extension("${target}" ext)
      if(NOT ext)
        message(FATAL_ERROR "slope_add_shaders(${ARG_TARGET}): unknown target '${target}' "
                            "(spirv, spirv-asm, glsl, cuda, ptx, host, object, llvm-ir)")
      endif()
      set(output "${out_dir}/${stem}.${ext}")
      # slopec writes the depfile: the output depends on the source, each file it
      # #includes and each module it imports (and theirs).
      add_custom_command(
        OUTPUT "${output}"
        COMMAND ${slopec} "${source}" -target ${target} -o "${output}"
                -depfile "${output}.d" ${common_flags}
        DEPENDS "${source}" ${slopec}
        DEPFILE "${output}.d"
        COMMENT "slopec ${stem}.slang -target ${target}"
        VERBATIM COMMAND_EXPAND_LISTS)
      list(APPEND outputs "${output}")
      if(ARG_EMBED)
        _slope_identifier("${stem}_${ext}" array)
        set(header "${header_dir}/${ARG_TARGET}/${stem}.${ext}.h")
        add_custom_command(
          OUTPUT "${header}"
          COMMAND ${CMAKE_COMMAND} "-DINPUT=${output}" "-DOUTPUT=${header}"
                  "-DNAMESPACE=${namespace}" "-DNAME=${array}" -P "${embed_script}"
          DEPENDS "${output}" "${embed_script}"
          COMMENT "Embedding ${stem}.${ext} in ${ARG_TARGET}/${stem}.${ext}.h"
          VERBATIM)
        list(APPEND headers "${header}")
      endif()
    endforeach()
  endforeach()

  add_custom_target(${ARG_TARGET}_build ALL DEPENDS ${outputs} ${headers})
  add_library(${ARG_TARGET} INTERFACE)
  # Dependencies of an INTERFACE library pass to whatever links it.
  add_dependencies(${ARG_TARGET} ${ARG_TARGET}_build)
  if(ARG_EMBED)
    file(MAKE_DIRECTORY "${header_dir}")
    target_include_directories(${ARG_TARGET} INTERFACE "${header_dir}")
  endif()
  set_target_properties(${ARG_TARGET} PROPERTIES
    SLOPE_SHADER_OUTPUTS "${outputs}" SLOPE_SHADER_HEADERS "${headers}"
    SLOPE_SHADER_OUTPUT_DIR "${out_dir}")
endfunction()

cmake_policy(POP)
