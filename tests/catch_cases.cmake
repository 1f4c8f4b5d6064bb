# Read by ctest (through each Catch2 executable's include file, see
# oms_add_test in tests/CMakeLists.txt): lists the executable's test cases so
# that each becomes a ctest entry of its own, named "<executable>: <case>".

# The case names of `executable` (its --list-test-names-only), in `out`;
# `ok` false when it is missing or cannot list them. A name's semicolons
# (which a CMake list would split at) come as ${OMS_CASE_SEMICOLON}: give each
# name to oms_catch_case_name before use.
set(OMS_CASE_SEMICOLON "<semicolon>")
function(oms_catch_case_names executable out ok)
  set(${ok} FALSE PARENT_SCOPE)
  if(NOT EXISTS "${executable}")
    return()
  endif()
  execute_process(COMMAND "${executable}" --list-test-names-only
    OUTPUT_VARIABLE listing RESULT_VARIABLE status ERROR_QUIET)
  # Catch2 exits with the number of cases listed; a crash is not a number.
  if(NOT status MATCHES "^[0-9]+$" OR status EQUAL 0)
    return()
  endif()
  string(REPLACE ";" "${OMS_CASE_SEMICOLON}" listing "${listing}")
  string(REPLACE "\n" ";" lines "${listing}")
  set(names "")
  foreach(line IN LISTS lines)
    if(NOT line STREQUAL "")
      list(APPEND names "${line}")
    endif()
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
  set(${ok} TRUE PARENT_SCOPE)
endfunction()

# The case name of an element of oms_catch_case_names's list, in `out`.
function(oms_catch_case_name element out)
  string(REPLACE "${OMS_CASE_SEMICOLON}" ";" name "${element}")
  set(${out} "${name}" PARENT_SCOPE)
endfunction()

# The Catch2 test spec that selects exactly the case `name`: the characters
# its spec parser reads as syntax are escaped with a backslash.
function(oms_catch_spec name out)
  set(spec "${name}")
  foreach(char "\\" "," "[" "]" "*" "\"" "~")
    string(REPLACE "${char}" "\\${char}" spec "${spec}")
  endforeach()
  # A leading dash would be read as an option of the executable.
  if(spec MATCHES "^-")
    set(spec "\\${spec}")
  endif()
  set(${out} "${spec}" PARENT_SCOPE)
endfunction()
