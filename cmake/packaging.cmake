# SPDX-License-Identifier: Apache-2.0
# A Debian package with `cpack -G DEB` (the `package` preset builds for it):
# two packages, as Debian splits a tool from its headers.
#   migplan      the binary, man pages, shell completions, JSON Schemas, docs
#   migplan-dev  the header-only core and its CMake package (find_package(migplan))
# Depends of `migplan` come from dpkg-shlibdeps (package dpkg-dev) on the
# binary, so they name the shared libraries it really links: build it with
# MIGPLAN_LEAN_LINK=OFF (the `package` preset does) to link them shared.

set(CPACK_PACKAGE_NAME migplan)
set(CPACK_PACKAGE_VENDOR "migplan developers")
set(CPACK_PACKAGE_CONTACT "migplan developers <migplan@users.noreply.github.com>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Each package's description below starts with its own synopsis line; an empty
# summary keeps CPackDeb from putting the project description before it.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)

set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The project has no public address yet: Homepage is left out of the .deb
# unless a packager names one (-DMIGPLAN_HOMEPAGE=https://...).
set(MIGPLAN_HOMEPAGE "" CACHE STRING "Homepage field of the Debian packages (left out when empty)")
if(MIGPLAN_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${MIGPLAN_HOMEPAGE}")
endif()

set(CPACK_DEBIAN_CLI_PACKAGE_NAME migplan)
set(CPACK_DEBIAN_CLI_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS "jq, python3-jsonschema")
set(CPACK_DEBIAN_CLI_DESCRIPTION
    "exact planner for NVIDIA MIG GPU-instance geometries
migplan answers, offline and exactly, whether a set of MIG GPU instances
fits on an NVIDIA A30, A100, H100, H200, B200, GB200, RTX PRO or other
MIG-capable GPU, where each instance goes, what capacity is stranded,
and why a request does not fit. It lists every feasible geometry of a
GPU, sizes workloads to profiles, and checks migplan geometry files and
NVIDIA mig-parted configs (also inside Kubernetes ConfigMaps) in CI.
Output is text, or JSON with a versioned schema.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME migplan-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "header-only C++20 library of migplan, the NVIDIA MIG geometry planner
The core of migplan as a header-only C++20 library using only the
standard library: the catalog of MIG-capable GPUs and their profiles,
the exact placement search, explanations of why a request does not fit,
and enumeration of geometries. Use it with find_package(migplan) and the
target migplan::core.")

include(CPack)
