"""Write the web survey's protocol file: a designed epsilon = 1 channel for five answers.

The server designs the privatizer that keeps the most information about the answer
(``optimal_channel(5, 1.0, utility="mi")``), labels its inputs with the survey's answers,
and publishes it as a protocol file (its privacy recomputed from the matrix). The page in
this folder loads that file and privatizes the answer in the browser.

Run (from the repository root): ``python examples/web_survey/make_protocol.py [OUT]``
(default ``examples/web_survey/protocol.json``).
"""

import sys
from pathlib import Path

from ldp.design import optimal_channel
from ldp.protocol import Protocol

QUESTION = "How often did you cycle to work last month?"
ANSWERS = ["never", "once or twice", "about once a week", "most days", "every day"]
EPSILON = 1.0


def main(out: str | None = None) -> Path:
    path = Path(out) if out else Path(__file__).with_name("protocol.json")
    design = optimal_channel(len(ANSWERS), EPSILON, utility="mi")
    protocol = Protocol.from_mechanism(design.channel, labels=ANSWERS, question=QUESTION)
    protocol.save(path)
    print(
        f"wrote {path}: {protocol.describe_domain()}, epsilon {protocol.epsilon:.6g}, "
        f"fingerprint {protocol.fingerprint}"
    )
    return path


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
