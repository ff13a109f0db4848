// A toy agent loop made a conform kernel with node-kit. toyLoop is the loop
// being wrapped: ten lines that know nothing of conform. The kernel below
// is the adapter: the loop's model and tools are the harness's, reached
// through the kit's helpers.
//
//   go run ./cmd/conform run --kernel "node examples/node-kit/toy.mjs" --tags @TA-01
import { main, Session, Cancelled } from "./kit.mjs";

async function toyLoop(prompt, model, tools) {
  const history = [{ role: "user", content: [{ type: "text", text: prompt }] }];
  for (;;) {
    const reply = await model(history);
    history.push(reply);
    const results = await tools(history);
    if (!results) return reply;
    history.push(results);
  }
}

/** @type {import("./kit.mjs").Kernel} */
export const toyKernel = {
  info: () => ({ name: "toy-kernel-node", version: "0.1.0" }),
  async run(host, params) {
    const s = new Session(host, params);
    let turn;
    const model = async (history) => {
      turn = await s.newTurn(history); // context/assemble
      return (await turn.model(history, s.toolSpecs())).message; // hooks, model/stream, cost/usage
    };
    const tools = async (history) => {
      const calls = history[history.length - 1].content.filter((b) => b.type === "tool_use");
      return calls.length ? turn.runTools(calls) : null; // hooks, invokes, interactive calls, plan
    };
    try {
      await s.start();
      return await s.finish("completed", await toyLoop(s.prompt, model, tools));
    } catch (err) {
      return err instanceof Cancelled ? s.finish("cancelled") : s.finish("failed", undefined, err);
    }
  },
};

if (import.meta.url === `file://${process.argv[1]}`) main(toyKernel);
