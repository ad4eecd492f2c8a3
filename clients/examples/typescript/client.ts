/**
 * An example client of the gamestrategy HTTP API in TypeScript, on Node's own fetch. Its types are generated
 * from the API's OpenAPI document (protos/openapi.json) by openapi-typescript (`npm run types`), so a call
 * with a body or a field the document does not have fails to compile.
 *
 *   npm ci && npm run build && node build/client.js http://127.0.0.1:8080 [VARIANT]
 *
 * prints one JSON line: the variants served, one Jotto guesser move of VARIANT (default: the first served)
 * and the error the server answers for a variant it does not serve. GAMESTRATEGY_TOKEN, when set, is sent as
 * the bearer token.
 */
import type { components, paths } from "./generated/api.js";

type Rpc = keyof paths & `/v1/${string}`;
type Request<P extends Rpc> = NonNullable<paths[P]["post"]["requestBody"]>["content"]["application/json"];
type Reply<P extends Rpc> = paths[P]["post"]["responses"][200]["content"]["application/json"];
export type ApiError = components["schemas"]["Error"];

/** A call the server answered with an error: the HTTP status and the body's {code, status, message}. */
export class GameStrategyError extends Error {
  constructor(readonly httpStatus: number, readonly error: ApiError) {
    super(`${httpStatus} ${error.status}: ${error.message}`);
  }
}

export class GameStrategyClient {
  constructor(readonly baseUrl: string, readonly token?: string, readonly timeoutMs = 10_000) {}

  /** POST /v1/<Method> with `request`; the reply, or a GameStrategyError. */
  async call<P extends Rpc>(path: P, request: Request<P>): Promise<Reply<P>> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "grpc-timeout": `${this.timeoutMs}m`, // the server's deadline for the call, in gRPC's format
    };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const response = await fetch(new URL(path, this.baseUrl), {
      method: "POST", headers, body: JSON.stringify(request), signal: AbortSignal.timeout(this.timeoutMs),
    });
    const body: unknown = await response.json();
    if (!response.ok) throw new GameStrategyError(response.status, body as ApiError);
    return body as Reply<P>;
  }
}

async function main(): Promise<void> {
  const [baseUrl, wanted] = process.argv.slice(2);
  if (!baseUrl) {
    console.error("usage: node build/client.js BASE_URL [VARIANT]");
    process.exit(2);
  }
  const client = new GameStrategyClient(baseUrl, process.env.GAMESTRATEGY_TOKEN);
  const listed = await client.call("/v1/ListVariants", {});
  const variant = wanted ?? listed.variants[0].variant;
  const move = await client.call("/v1/SampleMove", {
    variant, gameSeed: "7", wantDistribution: true, jotto: { role: "GUESSER" },
  });
  let refused: { httpStatus: number } & ApiError | undefined;
  try {
    await client.call("/v1/SampleMove", { variant: "no-such-variant" });
  } catch (e) {
    if (!(e instanceof GameStrategyError)) throw e;
    refused = { httpStatus: e.httpStatus, ...e.error };
  }
  console.log(JSON.stringify({
    variants: listed.variants.map((v) => v.variant),
    move: { variant, move: move.move, probability: move.probability, source: move.source,
            storeVersion: move.storeVersion, alternatives: move.distribution.length },
    refused,
  }));
}

await main();
