// SPDX-License-Identifier: Apache-2.0
// The entry point of the layer link checks (cmake/layer_links.cmake): the
// programs are only linked, never run. Each links one layer's objects and
// those of the layers below it, and fails to link where the layer calls
// something above it.
int main() { return 0; }
