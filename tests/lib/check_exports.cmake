# SPDX-License-Identifier: GPL-2.0
# cmake -DLIB=<libcxltier.so> -DMAP=<libcxltier.map> -P check_exports.cmake
# Fails unless the shared library exports exactly the functions the version script
# lists, each versioned LIBCXLTIER_1: no C++ internals leak, nothing listed is missing.
cmake_policy(VERSION 3.25)
execute_process(COMMAND nm -D --defined-only ${LIB}
  OUTPUT_VARIABLE nm_out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm -D ${LIB} failed")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${nm_out}")
set(exported)
foreach(line IN LISTS lines)
  if(line MATCHES " ([^ @]+)@@?([^ ]+)$")
    if(NOT CMAKE_MATCH_2 STREQUAL "LIBCXLTIER_1")
      message(FATAL_ERROR "${CMAKE_MATCH_1} has version ${CMAKE_MATCH_2}")
    endif()
    list(APPEND exported ${CMAKE_MATCH_1})
  elseif(line MATCHES " ([^ ]+)$" AND NOT CMAKE_MATCH_1 STREQUAL "LIBCXLTIER_1")
    message(FATAL_ERROR "unversioned export: ${CMAKE_MATCH_1}")
  endif()
endforeach()

file(READ ${MAP} map)
string(REGEX REPLACE "/\\*.*\\*/" "" map "${map}")
string(REGEX MATCHALL "cxltier_[a-z0-9_]+" listed "${map}")

list(SORT exported)
list(SORT listed)
if(NOT exported STREQUAL listed)
  set(extra ${exported})
  list(REMOVE_ITEM extra ${listed})
  set(missing ${listed})
  list(REMOVE_ITEM missing ${exported})
  message(FATAL_ERROR "exports differ from ${MAP}: not listed: ${extra}; not exported: ${missing}")
endif()
list(LENGTH exported n)
message(STATUS "${n} exports, all listed in the map and versioned LIBCXLTIER_1")
