# SPDX-License-Identifier: Apache-2.0
# Installation and the Debian package (scripts/package): the binary, the desktop
# entry, hicolor icons, AppStream metadata, the man page, the copyright and changelog
# Debian wants, and an example workspace. Dependencies come from dpkg-shlibdeps, plus
# what Qt loads at run time (the SQL drivers and the platform plugins).
include(GNUInstallDirs)

set(_docdir ${CMAKE_INSTALL_DATADIR}/doc/cooldown)
install(FILES ${PROJECT_SOURCE_DIR}/resources/cooldown.desktop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/resources/cooldown.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
foreach(size 16 32 48 64 128 256)
    install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/hicolor/${size}x${size}/apps/cooldown.png
            DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps)
endforeach()

# Debian wants the man page and the changelog compressed with gzip -9n; a package
# without a Debian revision is native, and its changelog is changelog.gz.
set(_man ${CMAKE_CURRENT_BINARY_DIR}/cooldown.1.gz)
set(_changelog ${CMAKE_CURRENT_BINARY_DIR}/changelog.gz)
add_custom_command(OUTPUT ${_man}
    COMMAND gzip -9nc ${PROJECT_SOURCE_DIR}/resources/man/cooldown.1 > ${_man}
    DEPENDS ${PROJECT_SOURCE_DIR}/resources/man/cooldown.1 VERBATIM)
add_custom_command(OUTPUT ${_changelog}
    COMMAND gzip -9nc ${PROJECT_SOURCE_DIR}/packaging/changelog > ${_changelog}
    DEPENDS ${PROJECT_SOURCE_DIR}/packaging/changelog VERBATIM)
add_custom_target(cooldown_package_files ALL DEPENDS ${_man} ${_changelog})
install(FILES ${_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${_changelog} ${PROJECT_SOURCE_DIR}/packaging/copyright DESTINATION ${_docdir})
install(FILES ${PROJECT_SOURCE_DIR}/resources/demo.json DESTINATION ${_docdir}/examples)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cooldown)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "Cooldown maintainers <maintainers@cooldown.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "dashboard and engine for API integrations that respect 429 and 503")
# CPack puts the summary above this as the synopsis line.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Cooldown runs the calls of API integrations through one shared concurrency
limit and a retry engine that treats 429 Too Many Requests and 503 Service
Unavailable as a contract: it honours Retry-After, backs off with jitter,
paces itself with rate-limit policies shared by every worker of a database,
and never sends a POST again without an idempotency key. Every attempt is
kept in SQLite or PostgreSQL; the dashboard charts 429s, waits and failures.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libyaml-cpp0.7: cooldown import reads YAML with it (shlibdeps finds it too; named here so
# that the dependency does not rest on the build machine's shlibs files).
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libqt6sql6-sqlite, libqt6sql6-psql, qt6-qpa-plugins, libyaml-cpp0.7")
# Japanese works without them, but Qt's own buttons would stay English and a desktop
# without a CJK font would draw boxes.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-translations-l10n, fonts-noto-cjk")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
