#!/usr/bin/env bash
# Source on the GPU machine after .device/on-device.sh: restores the xz-compressed Dawn addon of .bundle/.
d=.bundle/node_modules/webgpu/dist/linux-x64
[ -s "$d/dawn.node" ] || [ ! -e .bundle/dawn.node.xz ] || xz -dc .bundle/dawn.node.xz > "$d/dawn.node"
