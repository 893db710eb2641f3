# SPDX-License-Identifier: GPL-2.0
# cmake -DPLUGIN=<cxltier_spank.so> -DSLURMLIBS=<libslurmfull.so>,... -DSPANK_H=<spank.h>
#       -P check_spank_symbols.cmake
# Fails unless the plugin exports exactly what Slurm looks up in a SPANK plugin (its
# hooks and the plugin_* symbols), and every Slurm function it calls (spank_*,
# slurm_*, left undefined for the loading program to provide) is one Slurm has: one
# the first of SLURMLIBS that exists defines, or without any, one spank.h declares.
cmake_policy(VERSION 3.25)

# The names of the dynamic symbols nm -D lists with @option (--defined-only,
# --undefined-only), without their versions.
function(dynamic_symbols file option out)
  execute_process(COMMAND nm -D ${option} ${file} OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm -D ${option} ${file} failed")
  endif()
  string(REGEX MATCHALL "[^\n]+" lines "${text}")
  set(names)
  foreach(line IN LISTS lines)
    if(line MATCHES " ([^ @]+)(@[^ ]*)?$")
      list(APPEND names ${CMAKE_MATCH_1})
    endif()
  endforeach()
  list(SORT names)
  set(${out} ${names} PARENT_SCOPE)
endfunction()

set(expected plugin_name plugin_type plugin_version spank_plugin_version
  slurm_spank_init slurm_spank_init_post_opt slurm_spank_job_prolog
  slurm_spank_task_init slurm_spank_job_epilog)
list(SORT expected)
dynamic_symbols(${PLUGIN} --defined-only exported)
if(NOT exported STREQUAL expected)
  message(FATAL_ERROR "${PLUGIN} exports ${exported}; expected ${expected}")
endif()

dynamic_symbols(${PLUGIN} --undefined-only undefined)
set(slurmlib)
string(REPLACE "," ";" candidates "${SLURMLIBS}")
foreach(lib IN LISTS candidates)
  if(EXISTS ${lib})
    set(slurmlib ${lib})
    break()
  endif()
endforeach()
if(slurmlib)
  dynamic_symbols(${slurmlib} --defined-only slurm)
  set(source ${slurmlib})
else()
  file(READ ${SPANK_H} header)
  string(REGEX MATCHALL "[a-z_]+ *\\(" calls "${header}")
  string(REGEX REPLACE " *\\(" "" slurm "${calls}")
  set(source "${SPANK_H} (no libslurmfull.so here)")
endif()
set(used)
foreach(name IN LISTS undefined)
  if(name MATCHES "^(spank_|slurm_)")
    list(APPEND used ${name})
    list(FIND slurm ${name} found)
    if(found EQUAL -1)
      message(FATAL_ERROR "${PLUGIN} needs ${name}, which ${source} does not have")
    endif()
  endif()
endforeach()
if(NOT used)
  message(FATAL_ERROR "${PLUGIN} calls no Slurm function: not the SPANK plugin?")
endif()
message(STATUS "exports: ${exported}; Slurm functions it calls, all in ${source}: ${used}")
