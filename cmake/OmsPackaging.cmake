# Debian packages through CPack (`cmake --build build --target package`, or
# `cpack -G DEB` in the build tree), one per install component:
#   oms      the binary, the in-tree plugins with the docker runner, the
#            default configuration, the manual pages and shell completions
#   oms-sdk  the plugin ABI header and helpers, the CMake package, oms-sdk.pc
#            and the backend conformance kit oms-backend-check
# The packages install under /usr, the layout the binary finds relative to
# itself (bin/, lib/oms/plugins, share/oms), so nothing else is configured.
# A reserved name (RFC 2606 .invalid): no address is real until whoever
# publishes the packages sets theirs.
set(OMS_PACKAGE_MAINTAINER "oms maintainers <maintainers@oms.invalid>"
  CACHE STRING "the Maintainer field of the Debian packages")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME oms)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${OMS_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL oms sdk)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)

set(CPACK_DEBIAN_OMS_PACKAGE_NAME oms)
set(CPACK_DEBIAN_OMS_PACKAGE_SECTION utils)
set(CPACK_COMPONENT_OMS_DESCRIPTION "sandbox for the shell commands of a coding agent
oms runs each command in the task's worktree under the strongest confinement
the machine has (Landlock, seccomp and namespaces on Linux; a pinned Docker
container) and shows what it may read, write, reach and see beforehand.")
# The docker backend needs a Docker daemon; the others do not. The bash
# completion needs bash-completion's loader, which a minimal system lacks.
set(CPACK_DEBIAN_OMS_PACKAGE_SUGGESTS "docker.io")
set(CPACK_DEBIAN_OMS_PACKAGE_RECOMMENDS "bash-completion")
# Install and remove the AppArmor profile where the kernel asks for one.
set(CPACK_DEBIAN_OMS_PACKAGE_CONTROL_EXTRA
  "${CMAKE_SOURCE_DIR}/packaging/deb/postinst;${CMAKE_SOURCE_DIR}/packaging/deb/postrm")
set(CPACK_DEBIAN_OMS_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_SDK_PACKAGE_NAME oms-sdk)
set(CPACK_DEBIAN_SDK_PACKAGE_SECTION devel)
set(CPACK_COMPONENT_SDK_DESCRIPTION "SDK for oms plugins: C ABI header, CMake package, conformance kit
Headers, the CMake package oms-sdk, the pkg-config file oms-sdk.pc (its
plugindir variable names the folder oms loads plugins from) and
oms-backend-check, which checks a backend plugin's obligations.")
set(CPACK_DEBIAN_SDK_PACKAGE_SUGGESTS "oms, cmake, pkgconf")

# Depends from what the files link (libc6, libgcc-s1, libstdc++6 for the
# kit): Boost and the C++ runtime are linked into oms and its plugins.
find_program(OMS_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(OMS_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_OMS_PACKAGE_DEPENDS "libc6 (>= 2.36), libgcc-s1")
  set(CPACK_DEBIAN_SDK_PACKAGE_DEPENDS "libc6 (>= 2.36), libgcc-s1, libstdc++6")
endif()

include(CPack)
