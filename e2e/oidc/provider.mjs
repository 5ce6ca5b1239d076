// A real OpenID Connect provider for the sign-in tests: panva's certified oidc-provider,
// configured by the test through one JSON argument:
//   {"port": 0, "clients": [{"client_id", "client_secret", "redirect_uris"}],
//    "accounts": {"<login>": {"email", "email_verified", "name", "groups"}},
//    "idTokenTtl": 3600}
// Its development interactions serve the login form (any account named in "accounts", any
// password) and the consent page. Prints {"issuer": ...} once listening.
import Provider from "oidc-provider";

const job = JSON.parse(process.argv[2]);
const accounts = job.accounts;
const port = job.port;
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: job.clients.map((c) => ({
    grant_types: ["authorization_code"],
    response_types: ["code"],
    token_endpoint_auth_method: c.client_secret ? "client_secret_basic" : "none",
    ...c,
  })),
  claims: {
    openid: ["sub"],
    email: ["email", "email_verified"],
    profile: ["name"],
    groups: ["groups"],
  },
  scopes: ["openid", "email", "profile", "groups"],
  async findAccount(ctx, id) {
    if (!(id in accounts)) return undefined;
    return { accountId: id, async claims() { return { sub: id, ...accounts[id] }; } };
  },
  features: { devInteractions: { enabled: true } },
  pkce: { required: () => true },
  ttl: { IdToken: job.idTokenTtl ?? 3600 },
  cookies: { keys: ["arena-test-only-cookie-key"] },
});
provider.proxy = false;
provider.on("server_error", (ctx, err) => console.error("server_error", err));
provider.listen(port, "127.0.0.1", () => {
  console.log(JSON.stringify({ issuer }));
});
