// Private networking (resources.bicep, privateNetworking): a virtual network the function app joins,
// and for each service it reaches a private endpoint, with the private DNS zone that makes the
// service's own host name resolve to the endpoint's address inside the network. The services turn
// public network access off themselves (resources.bicep); the app's settings do not change, since the
// host names stay the same.
//
// Address space 10.0.0.0/16: `app` (10.0.0.0/24) for the app's instances, `private-endpoints`
// (10.0.1.0/24) for the endpoints. To reach the services from elsewhere (an operator's machine, a
// pipeline agent), peer this network or connect to it, and resolve through its DNS zones.

@description('Name of the virtual network.')
param name string

param location string

param tags object = {}

@description('Each service reached through a private endpoint.')
param endpoints privateEndpointSpec[]

type privateEndpointSpec = {
  @description('Short name of the endpoint, unique here.')
  name: string
  @description('Resource id of the service.')
  resourceId: string
  @description('The service\'s sub-resource: blob, table, vault, Sql, namespace.')
  groupId: string
  @description('The private DNS zone of that sub-resource, e.g. privatelink.blob.core.windows.net.')
  dnsZone: string
}

var appSubnetName = 'app'
var endpointSubnetName = 'private-endpoints'

resource vnet 'Microsoft.Network/virtualNetworks@2024-05-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    addressSpace: {
      addressPrefixes: [
        '10.0.0.0/16'
      ]
    }
    subnets: [
      {
        // Flex Consumption's virtual network integration: a subnet delegated to Microsoft.App/environments
        // (the subscription needs the Microsoft.App resource provider registered). One address per
        // instance: 251 usable addresses, well above the default maximumInstanceCount of 100.
        name: appSubnetName
        properties: {
          addressPrefix: '10.0.0.0/24'
          delegations: [
            {
              name: 'flex-consumption'
              properties: {
                serviceName: 'Microsoft.App/environments'
              }
            }
          ]
          // The app still calls the internet (vendor and automation bridges, Microsoft Graph, Azure
          // Resource Manager, Application Insights, webhook targets) through this subnet. Stated, since
          // newer virtual networks make subnets private (no default outbound access) unless told; for a
          // fixed outbound address, attach a NAT gateway instead.
          defaultOutboundAccess: true
        }
      }
      {
        name: endpointSubnetName
        properties: {
          addressPrefix: '10.0.1.0/24'
          privateEndpointNetworkPolicies: 'Disabled'
        }
      }
    ]
  }
}

// One zone per distinct zone name (both storage accounts' blob endpoints share one), linked to the network.
var dnsZones = union(map(endpoints, endpoint => endpoint.dnsZone), [])

resource zones 'Microsoft.Network/privateDnsZones@2020-06-01' = [
  for zone in dnsZones: {
    name: zone
    location: 'global'
    tags: tags
  }
]

resource zoneLinks 'Microsoft.Network/privateDnsZones/virtualNetworkLinks@2020-06-01' = [
  for (zone, i) in dnsZones: {
    parent: zones[i]
    name: name
    location: 'global'
    tags: tags
    properties: {
      registrationEnabled: false
      virtualNetwork: {
        id: vnet.id
      }
    }
  }
]

resource privateEndpoints 'Microsoft.Network/privateEndpoints@2024-05-01' = [
  for endpoint in endpoints: {
    name: 'pe-${endpoint.name}'
    location: location
    tags: tags
    properties: {
      subnet: {
        id: '${vnet.id}/subnets/${endpointSubnetName}'
      }
      privateLinkServiceConnections: [
        {
          name: endpoint.name
          properties: {
            privateLinkServiceId: endpoint.resourceId
            groupIds: [
              endpoint.groupId
            ]
          }
        }
      ]
    }
  }
]

// Registers each endpoint's address in its zone, and keeps it registered.
resource zoneGroups 'Microsoft.Network/privateEndpoints/privateDnsZoneGroups@2024-05-01' = [
  for (endpoint, i) in endpoints: {
    parent: privateEndpoints[i]
    name: 'default'
    dependsOn: [
      zones
    ]
    properties: {
      privateDnsZoneConfigs: [
        {
          name: replace(endpoint.dnsZone, '.', '-')
          properties: {
            privateDnsZoneId: resourceId('Microsoft.Network/privateDnsZones', endpoint.dnsZone)
          }
        }
      ]
    }
  }
]

@description('The subnet the function app joins.')
output appSubnetId string = '${vnet.id}/subnets/${appSubnetName}'
