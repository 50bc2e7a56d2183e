# CPack runs this on the staging tree of the Debian package (CPACK_PRE_BUILD_SCRIPTS), after
# the install rules and before packing: what Debian's policy asks and `cmake --install` should
# not do (a plain man page stays plain there).
set(Root "${CPACK_TEMPORARY_INSTALL_DIRECTORY}${CPACK_PACKAGING_INSTALL_PREFIX}")
if(NOT EXISTS "${Root}/bin/torchlint")
  message(FATAL_ERROR "deb-stage: no bin/torchlint under ${Root}")
endif()
set(Doc "${Root}/${CPACK_TORCHLINT_DOC_DIR}")
file(MAKE_DIRECTORY "${Doc}")
file(COPY_FILE "${CPACK_TORCHLINT_PACKAGING_DIR}/copyright" "${Doc}/copyright")

# gzip -9n: best compression, no name or time stamp, so the package is reproducible.
function(gzip_to In Out)
  execute_process(COMMAND gzip -9n -c "${In}" OUTPUT_FILE "${Out}" RESULT_VARIABLE Rc)
  if(NOT Rc EQUAL 0)
    message(FATAL_ERROR "deb-stage: gzip ${In} failed")
  endif()
endfunction()
# A version without a Debian revision is a native package, whose changelog is changelog.gz.
gzip_to("${CPACK_TORCHLINT_PACKAGING_DIR}/changelog" "${Doc}/changelog.gz")
set(Man "${Root}/${CPACK_TORCHLINT_MAN_DIR}/torchlint.1")
gzip_to("${Man}" "${Man}.gz")
file(REMOVE "${Man}")

# Whatever the umask was: directories 755, files 644, the program 755.
file(CHMOD_RECURSE "${CPACK_TEMPORARY_INSTALL_DIRECTORY}"
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
     DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                           WORLD_READ WORLD_EXECUTE)
file(CHMOD "${Root}/bin/torchlint"
     PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
