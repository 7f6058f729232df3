{
  "targets": [
    {
      "target_name": "optimizer",
      "sources": [
        "native/addon.cpp",
        "native/marshal.cpp",
        "native/engine_wrap.cpp",
        "native/graph.cpp",
        "native/clusters.cpp",
        "native/linearize.cpp",
        "native/chunk.cpp",
        "native/chunk_order_incremental.cpp",
        "native/baseline_v31.cpp",
        "native/baseline_v30.cpp",
        "native/template_optimized.cpp",
        "native/bound.cpp",
        "native/bound_exact.cpp",
        "native/bound_exact_view.cpp",
        "native/bound_choose.cpp",
        "native/bound_lagrange.cpp",
        "native/bound_deepen.cpp",
        "native/bound_branch.cpp",
        "native/bound_closure.cpp",
        "native/bound_repair.cpp",
        "native/projected.cpp",
        "native/optimizer.cpp",
        "native/incremental.cpp",
        "native/incremental_prepare.cpp",
        "native/snapshot_reader.cpp",
        "native/snapshot_wrap.cpp",
        "native/merkle.cpp",
        "native/merkle_wrap.cpp"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "native"
      ],
      "defines": [
        "NAPI_DISABLE_CPP_EXCEPTIONS",
        "NAPI_VERSION=8"
      ],
      "cflags!": [
        "-fno-exceptions"
      ],
      "cflags_cc!": [
        "-fno-exceptions",
        "-fno-rtti"
      ],
      "cflags_cc": [
        "-std=c++20",
        "-fexceptions",
        "-Wall",
        "-Wextra"
      ],
      "conditions": [
        [
          "target_arch=='x64'",
          {
            "cflags_cc": [
              "-mpopcnt"
            ]
          }
        ]
      ],
      "configurations": {
        "Release": {
          "cflags_cc": [
            "-O3"
          ]
        },
        "Debug": {
          "defines": [
            "OPTIMIZER_DEBUG"
          ],
          "cflags_cc": [
            "-O1",
            "-g",
            "-fno-omit-frame-pointer",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=undefined"
          ],
          "ldflags": [
            "-fsanitize=address,undefined"
          ]
        }
      }
    }
  ]
}
