# Unit tests: the provider is mocked (no BMC, array or node is reached).
# They check the variables' rules and the servers the module powers on.
# Run in the module's folder: terraform init && terraform test

mock_provider "hpcstorage" {}

variables {
  nsd_servers = [
    { name = "nsd1", host = "10.0.0.1", bmc = "bmc-nsd1" },
    { name = "nsd2", host = "10.0.0.2", bmc = "bmc-nsd2" },
  ]
  gateways = [{ name = "gw1", host = "10.0.0.5" }]
  arrays   = ["me4084-1"]
}

run "servers_with_a_bmc_powered_on" {
  command = plan
  plan_options {
    target = [hpcstorage_server.this]
  }

  assert {
    condition     = keys(hpcstorage_server.this) == ["nsd1", "nsd2"] && alltrue([for s in hpcstorage_server.this : s.power_state == "On"])
    error_message = "The NSD servers (the ones with a BMC) are powered on; the gateway without a BMC is left alone."
  }
}

run "servers_in_the_gpfs_failure_domain" {
  command = plan
  plan_options {
    target = [hpcstorage_server.this]
  }
  variables {
    bios_attributes = { LogicalProc = "Disabled" }
  }

  assert {
    condition     = alltrue([for n, s in hpcstorage_server.this : s.failure_domain.kind == "gpfs" && s.failure_domain.name == "r5" && s.failure_domain.node == n])
    error_message = "Every server is a member of the cluster's gpfs failure domain, under its GPFS node name."
  }
  assert {
    condition     = hpcstorage_server.this["nsd1"].failure_domain.admin_host == "10.0.0.2" && hpcstorage_server.this["nsd2"].failure_domain.admin_host == "10.0.0.1"
    error_message = "Cluster commands run on the other NSD server while one is away."
  }
  assert {
    condition     = hpcstorage_server.this["nsd1"].bios_attributes == tomap({ LogicalProc = "Disabled" })
    error_message = "bios_attributes reach every server."
  }
}

run "nine_nsd_servers" {
  command = plan
  variables {
    nsd_servers = [for i in range(9) : { name = "nsd${i}", host = "10.0.0.${i + 1}", bmc = null }]
  }
  expect_failures = [var.nsd_servers]
}

run "no_array" {
  command = plan
  variables {
    arrays = []
  }
  expect_failures = [var.arrays]
}

run "unknown_metadata" {
  command = plan
  variables {
    metadata = "ssd"
  }
  expect_failures = [var.metadata]
}

run "negative_me484_count" {
  command = plan
  variables {
    me484_count = -1
  }
  expect_failures = [var.me484_count]
}
