provider "vsphere" "dc1" {
  url        = "https://vcenter.example/sdk"
  datacenter = "DC0"
  anything   = { the = "provider decodes this body itself" }
}

template "freebsd" {
  provider = provider.vsphere.dc1
  source   = "freebsd-14.2-tmpl"
  os       = "freebsd"
  ssh {
    user             = "root"
    private_key_file = "~/.ssh/lab_ed25519"
  }
}

template "debian" {
  source = "/DC0/vm/debian 12"
  ssh {
    user = "debian"
    port = 2222
  }
}

pair "mixed" {
  server = template.freebsd
  client = template.debian
  vcpu   = 2
  memory = "2GiB"
  nic {
    model  = "vmxnet3"
    queues = 2
    host   = { tso4 = false, "guest_csum" = true }
  }
  link {
    mtu = 9000
  }
}
