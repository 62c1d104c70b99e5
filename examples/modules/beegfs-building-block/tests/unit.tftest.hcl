# Unit tests: the provider is mocked (no BMC, array or node is reached).
# They check the rules on the blocks a file system is made of.
# Run in the module's folder: terraform init && terraform test

mock_provider "hpcstorage" {}

variables {
  conn_auth_secret_file = "/etc/beegfs/connauth"
  ha                    = false
  blocks = [
    { name = "b1", profile = "base", servers = [{ name = "s1", host = "10.0.0.1" }, { name = "s2", host = "10.0.0.2" }] },
    { name = "b2", profile = "storage", servers = [{ name = "s3", host = "10.0.0.3" }, { name = "s4", host = "10.0.0.4" }] },
  ]
}

run "two_base_blocks" {
  command = plan
  variables {
    blocks = [
      { name = "b1", profile = "base", servers = [{ name = "s1", host = "10.0.0.1" }] },
      { name = "b2", profile = "base", servers = [{ name = "s2", host = "10.0.0.2" }] },
    ]
  }
  expect_failures = [var.blocks]
}

run "duplicate_block_names" {
  command = plan
  variables {
    blocks = [
      { name = "b1", profile = "base", servers = [{ name = "s1", host = "10.0.0.1" }] },
      { name = "b1", profile = "storage", servers = [{ name = "s2", host = "10.0.0.2" }] },
    ]
  }
  expect_failures = [var.blocks]
}

run "unknown_profile" {
  command = plan
  variables {
    blocks = [
      { name = "b1", profile = "base", servers = [{ name = "s1", host = "10.0.0.1" }] },
      { name = "b2", profile = "capacity", servers = [{ name = "s2", host = "10.0.0.2" }] },
    ]
  }
  expect_failures = [var.blocks]
}
