// Command sonicsku converts one SONiC SKU's port files, as sonic-buildimage
// ships them, into the port map the platform catalog embeds
// (compiler/platforms/sonic/<hwsku>.json).
//
// It reads, under a local copy of sonic-buildimage (a checkout, or the
// paths extracted from a bare clone with `git archive <commit> <dirs> | tar
// -x`), the platform's platform.json (parent ports, lanes, front-panel
// index, breakout modes) and the HWSKU's hwsku.json (each parent's default
// breakout mode, fec, autoneg) and port_config.ini. SONiC derives its PORT
// table from platform.json and hwsku.json whenever both exist
// (sonic-py-common device_info.get_path_to_port_config_file), so those are
// the data; the converter refuses to write a map whose default modes do not
// reproduce port_config.ini row for row (name, lanes, alias, index, speed),
// which checks the breakout rule of compiler/platforms against the vendor's
// own rendering. It needs no network: refreshing a map is
//
//	git --git-dir=sonic-buildimage.git archive <commit> device/<vendor>/<platform> | tar -x -C src
//	go run ./compiler/platforms/internal/sonicsku -root src -platform device/<vendor>/<platform> \
//	    -hwsku <HWSKU> -model <catalog model> -commit <commit> [-ref <branch or pull ref>] \
//	    -out compiler/platforms/sonic/<HWSKU>.json
//
// (add the directory a symlinked file points to, e.g. another platform's
// port_config.ini, to the archive paths).
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	var o options
	flag.StringVar(&o.root, "root", "", "local copy of sonic-buildimage (the directory holding device/)")
	flag.StringVar(&o.platformDir, "platform", "", "platform directory under root, e.g. device/celestica/x86_64-cls_ds5000-r0")
	flag.StringVar(&o.hwsku, "hwsku", "", "HWSKU directory under the platform, e.g. DS5000")
	flag.StringVar(&o.model, "model", "", "catalog model the SKU belongs to, e.g. DS5000")
	flag.StringVar(&o.repo, "repo", "sonic-net/sonic-buildimage", "repository the files come from")
	flag.StringVar(&o.commit, "commit", "", "full commit hash the files were read at")
	flag.StringVar(&o.ref, "ref", "", "branch or pull request holding the commit, when it is not on master")
	out := flag.String("out", "", "file to write (stdout when empty)")
	flag.Parse()
	data, err := convert(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sonicsku:", err)
		os.Exit(1)
	}
	if *out == "" {
		os.Stdout.Write(data)
		return
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "sonicsku:", err)
		os.Exit(1)
	}
}
