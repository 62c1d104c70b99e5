# <endpoint name from the provider block>/<ComputerSystem id>
terraform import 'hpcstorage_server.nfs["nfs1-bmc"]' nfs1-bmc/System.Embedded.1
