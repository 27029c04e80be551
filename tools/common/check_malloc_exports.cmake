# Fails unless BINARY's dynamic symbol table defines every malloc-family function: a
# library the tool loads (the LLVM plugin, a Vulkan driver) must allocate and free with
# the tool's jemalloc, never with glibc's malloc behind its back.
execute_process(COMMAND nm -D --defined-only ${BINARY} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm -D ${BINARY} failed")
endif()
foreach(fn malloc free calloc realloc posix_memalign aligned_alloc memalign valloc
           malloc_usable_size)
  if(NOT symbols MATCHES "[0-9a-f]+ [TW] ${fn}\n")
    message(FATAL_ERROR "${BINARY} does not export ${fn}: a loaded library would use glibc's")
  endif()
endforeach()
message(STATUS "${BINARY} exports the malloc family")
