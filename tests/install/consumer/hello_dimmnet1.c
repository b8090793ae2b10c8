/*
 * A program of someone else's, built against the installed shim only
 * (pkg-config or find_package): node 0 sends node 1 a message, node 1
 * checks it; both say which firmware their NIC runs.
 */
#include <stdio.h>
#include <string.h>
#include <dimmnet1/dn.h>

int main(void)
{
    static const char text[] = "hello over the installed libdimmnet1";
    struct dn_boot_info bi;
    char buf[64] = { 0 };
    dn_node *n;
    int rc;

    if ((rc = dn_open_env(&n, 30000)) != DN_OK ||
        (rc = dn_msg_init(n, NULL)) != DN_OK ||
        (rc = dn_boot_info(n, &bi)) != DN_OK ||
        (rc = dn_rendezvous("hello-init", 60000)) != DN_OK) {
        fprintf(stderr, "hello: %s\n", dn_strerror(rc));
        return 1;
    }
    if (dn_node_id(n) == 0) {
        rc = dn_msg_send(n, 1, 42, text, sizeof(text), 60000);
    } else {
        struct dn_msg_status st;
        rc = dn_msg_recv(n, 0, 42, buf, sizeof(buf), &st, 60000);
        if (rc == DN_OK && (st.len != sizeof(text) || strcmp(buf, text))) {
            fprintf(stderr, "hello: got %zu bytes '%s'\n", st.len, buf);
            rc = DN_EIO;
        }
    }
    printf("node %u: firmware %u.%u.%u from slot %u: %s%s\n", dn_node_id(n),
           bi.version >> 16, (bi.version >> 8) & 0xff, bi.version & 0xff, bi.slot,
           rc == DN_OK ? "ok" : dn_strerror(rc),
           rc == DN_OK && dn_node_id(n) == 1 ? " (message received intact)" : "");
    dn_close(n);
    return rc == DN_OK ? 0 : 1;
}
