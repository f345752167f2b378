// RUN: not tic-opt %s --tic-generate-c-entry-points 2>&1 | FileCheck %s --check-prefix=NOATTR
// RUN: not tic-opt %s --split-input-file --tic-generate-field-accessors 2>&1 | FileCheck %s

// NOATTR: missing the 'tic.interface' attribute (run tic-generate-field-accessors first)

// A description that does not match the IR is an error, not a bad object.
// CHECK: tic.interface names kernel 'gone' but the module has no tc.kernel @gone
module attributes {tic.interface = "{\"module\": \"m\", \"fields\": [], \"kernels\": [{\"name\": \"gone\", \"symbol\": \"gone\", \"c_function\": \"m_gone\", \"params\": [], \"result\": null}]}"} {
}

// -----

// CHECK: 'tc.kernel' op has 1 arguments but its C signature has 3 scalar components
module attributes {tic.interface = "{\"module\": \"m\", \"fields\": [], \"kernels\": [{\"name\": \"k\", \"symbol\": \"k\", \"c_function\": \"m_k\", \"params\": [{\"name\": \"v\", \"kind\": \"vector\", \"dtype\": \"f32\", \"rows\": 3, \"cols\": 1}], \"result\": null}]}"} {
  tc.kernel @k(%a: f32) {
    tc.return
  }
}
