package routing

// Inventory is an inventory file as routing reads it: how each device is
// reached. The file is schema's (#Inventory), which loads and checks it;
// the CLI's wiring hands it over (Registry.LoadInventory), so that routing
// need not import the layer that loads intents.
type Inventory struct {
	// For returns how a device of a platform is reached, the levels of
	// the inventory (defaults, platform or hosts) merged, and its address.
	For func(name, platform string) (Access, string)
	// PasswordEnv names the environment variable that auth "password"
	// reads the password from.
	PasswordEnv string
}

// Access is how one device is reached, as the inventory gives it
// (#Access). It holds references to secrets, never secrets.
type Access struct {
	// Transport is gnmi, ssh, dir or another the inventory allows.
	Transport string
	// Port is the transport's port; 0 when the address carries it or
	// the transport's own applies.
	Port int
	// Username, Auth (agent, key or password) and KeyFile are the login.
	Username, Auth, KeyFile string
	// KnownHosts is the known_hosts file SSH host keys are checked in.
	KnownHosts string
	// Sudo runs a server's commands behind sudo; Insecure is a request
	// to skip checking the device, which rocefab refuses.
	Sudo, Insecure bool
	// CAFile is the PEM file of the authorities that sign the devices'
	// gNMI (TLS) certificates, relative to the inventory's directory;
	// empty means the system's roots.
	CAFile string
}
