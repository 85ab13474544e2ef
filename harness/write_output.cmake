# cmake -DEXE=bench -DARG1=help -DARG2=--man -DOUT=file -P write_output.cmake:
# runs EXE ARG1 ARG2 and writes its standard output to OUT (generated docs),
# through a temporary name so OUT is never half written.
if(NOT ARG1 OR NOT ARG2)
  message(FATAL_ERROR "write_output.cmake needs ARG1 and ARG2")
endif()
execute_process(COMMAND ${EXE} ${ARG1} ${ARG2} OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${EXE} ${ARG1} ${ARG2} failed: ${rc}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
