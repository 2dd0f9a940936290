"""Reruns of customer-service tasks with planted divergences, written as tau-bench results.

Each task is a sequence of expected tool calls (identify the user, look things up, one
consequential action) in a domain; every run of it is a tau-bench record (system policy,
simulated user, assistant messages and tool calls, tool results) whose wording is drawn at
random, and a success may take a harmless extra look-up (after the user is identified). A failed run copies the path of a
success up to a planted point and then leaves it one of four ways (a different tool, other
arguments, a missing action, an extra action). The planted point is the index of the assistant
message in ``traj`` (``metadata.planted_divergence.message``).

The fit (:mod:`analyzer.contrast.fit`) draws its development data from the ``airline`` and
``bank`` domains; the committed ``sample_reruns/`` set comes from the ``retail`` domain
(``scripts/sample_reruns.py``), so the check does not see the fit's data.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Entity = dict[str, Any]
ArgsOf = Callable[[Entity], dict[str, Any]]

_FIRST = ["Yusuf", "Mei", "Olivia", "Raj", "Sofia", "Liam", "Amara", "Chen", "Ivan", "Lucia", "Omar", "Noor",
          "Ethan", "Hana", "Diego", "Priya", "Tomas", "Aiko", "Fatima", "Lars"]
_LAST = ["Rossi", "Kim", "Garcia", "Patel", "Novak", "Silva", "Okafor", "Li", "Petrov", "Moreau", "Haddad",
         "Jensen", "Brown", "Sato", "Lopez", "Khan", "Berg", "Ito", "Nasser", "Olsen"]
_CITIES = ["Philadelphia", "Denver", "Austin", "Seattle", "Boston", "Chicago", "Portland", "Phoenix"]


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def _entity(rng: random.Random) -> Entity:
    first, last = rng.choice(_FIRST), rng.choice(_LAST)
    return {
        "first": first, "last": last, "zip": _digits(rng, 5), "user_id": f"{first.lower()}_{last.lower()}_{_digits(rng, 4)}",
        "email": f"{first.lower()}.{last.lower()}{_digits(rng, 2)}@example.com",
        "order": f"#W{_digits(rng, 7)}", "order2": f"#W{_digits(rng, 7)}",
        "items": [_digits(rng, 10) for _ in range(rng.choice([1, 2]))], "new_items": [_digits(rng, 10) for _ in range(2)],
        "product": _digits(rng, 10), "product2": _digits(rng, 10),
        "payment": f"credit_card_{_digits(rng, 7)}", "payment2": f"gift_card_{_digits(rng, 7)}",
        "reason": rng.choice(["no longer needed", "ordered by mistake"]), "city": rng.choice(_CITIES),
        "street": f"{rng.randint(10, 999)} {rng.choice(['Broadway', 'Elm Street', 'Main Street', 'Oak Avenue'])}",
        "reservation": "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(6)),
        "reservation2": "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(6)),
        "flight": f"HAT{rng.randint(100, 299)}", "flight2": f"HAT{rng.randint(300, 499)}",
        "origin": rng.choice(["JFK", "SFO", "ORD", "LAX"]), "dest": rng.choice(["SEA", "BOS", "DEN", "MIA"]),
        "date": f"2024-05-{rng.randint(10, 28)}", "bags": rng.randint(1, 3), "amount": rng.choice([50, 100, 150, 200]),
        "account": f"ACC{_digits(rng, 8)}", "account2": f"ACC{_digits(rng, 8)}", "card": f"CARD{_digits(rng, 6)}",
        "txn": f"TXN{_digits(rng, 9)}", "dob": f"19{rng.randint(50, 99)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
    }


@dataclass(frozen=True)
class Call:
    """One expected tool call of a flow: tool, arguments, what it returns, and what the agent says."""

    tool: str
    args: ArgsOf
    result: Callable[[Entity], Any]
    says: tuple[str, ...]
    consequential: bool = False


@dataclass(frozen=True)
class Flow:
    """A kind of task: what the user wants, how they identify, and the expected calls."""

    name: str
    goal: tuple[str, ...]
    identify: tuple[str, ...]
    calls: tuple[Call, ...]
    confirm: tuple[str, ...]


@dataclass(frozen=True)
class Domain:
    """Tools and flows of one customer-service domain."""

    name: str
    policy: str
    flows: tuple[Flow, ...]
    decoys: tuple[Call, ...]  # plausible wrong calls (a different action, an extra action)
    lookups: tuple[Call, ...]  # harmless extra look-ups a success may make


def _ok(e: Entity) -> str:
    return "success"


def _user_obj(e: Entity) -> dict[str, Any]:
    return {"user_id": e["user_id"], "name": {"first_name": e["first"], "last_name": e["last"]}, "email": e["email"],
            "address": {"address1": e["street"], "city": e["city"], "zip": e["zip"]},
            "payment_methods": {e["payment"]: {"source": "credit_card"}, e["payment2"]: {"source": "gift_card"}},
            "orders": [e["order"], e["order2"]]}


def _order_obj(e: Entity, status: str) -> dict[str, Any]:
    return {"order_id": e["order"], "user_id": e["user_id"], "status": status,
            "items": [{"item_id": i, "product_id": e["product"], "price": 100 + int(i[:2])} for i in e["items"]],
            "payment_history": [{"transaction_type": "payment", "payment_method_id": e["payment"]}]}


_FIND_ZIP = Call("find_user_id_by_name_zip", lambda e: {"first_name": e["first"], "last_name": e["last"], "zip": e["zip"]},
                 lambda e: e["user_id"], ("Let me locate your account.", "I'll look up your user id now.",
                                          "Thanks, let me find your account first."))
_FIND_EMAIL = Call("find_user_id_by_email", lambda e: {"email": e["email"]}, lambda e: e["user_id"],
                   ("Let me find your account by email.", "I'll look you up by your email address.",
                    "Thank you, locating your user id now."))
_USER = Call("get_user_details", lambda e: {"user_id": e["user_id"]}, _user_obj,
             ("Let me pull up your profile.", "I'll check your account details.", "Let me see your user details."))


def _order(status: str) -> Call:
    return Call("get_order_details", lambda e: {"order_id": e["order"]}, lambda e: _order_obj(e, status),
                ("Let me check that order.", "I'll look up the order details.", "Checking the status of your order."))


_PRODUCT = Call("get_product_details", lambda e: {"product_id": e["product"]},
                lambda e: {"product_id": e["product"], "variants": {i: {"available": True} for i in e["new_items"]}},
                ("Let me check the available options.", "I'll look at the product's variants.",
                 "Checking which options are in stock."))

RETAIL = Domain(
    "retail",
    "# Retail agent policy\nAuthenticate the user by email or name + zip first. Before a consequential action "
    "(cancel, modify, return, exchange) list the details and get an explicit yes. One tool call at a time.",
    (
        Flow("cancel", ("I want to cancel my order {order}.", "Please cancel order {order}, I don't need it anymore.",
                        "Hi, can you cancel my pending order {order}?"),
             ("My name is {first} {last}, zip {zip}.", "Sure: {first} {last}, {zip}."),
             (_FIND_ZIP, _order("pending"),
              Call("cancel_pending_order", lambda e: {"order_id": e["order"], "reason": e["reason"]},
                   lambda e: {"order_id": e["order"], "status": "cancelled"},
                   ("I'll cancel the order now.", "Cancelling your order as confirmed.", "Proceeding with the cancellation."),
                   True)),
             ("I will cancel order {order} for the reason '{reason}'. Shall I proceed?",
              "To confirm: cancel {order}, reason {reason}. Yes?")),
        Flow("return", ("I'd like to return items from {order}.", "Hello, I need to return something from order {order}.",
                        "Can I send back the items of {order}?"),
             ("My email is {email}.", "It's {email}."),
             (_FIND_EMAIL, _USER, _order("delivered"),
              Call("return_delivered_order_items", lambda e: {"order_id": e["order"], "item_ids": e["items"],
                                                              "payment_method_id": e["payment"]},
                   lambda e: {"order_id": e["order"], "status": "return requested"},
                   ("Submitting the return now.", "I'll process the return.", "Processing your return request."), True)),
             ("I will return items {items} of {order}, refund to {payment}. Proceed?",
              "Return {items} from {order} with refund to {payment}: confirm?")),
        Flow("exchange", ("I want to exchange an item from {order}.", "Could I swap an item in order {order}?",
                          "Hi, I'd like an exchange for order {order}."),
             ("I'm {first} {last} in {zip}.", "{first} {last}, zip code {zip}."),
             (_FIND_ZIP, _order("delivered"), _PRODUCT,
              Call("exchange_delivered_order_items", lambda e: {"order_id": e["order"], "item_ids": e["items"],
                                                                "new_item_ids": e["new_items"][: len(e["items"])],
                                                                "payment_method_id": e["payment"]},
                   lambda e: {"order_id": e["order"], "status": "exchange requested"},
                   ("Placing the exchange now.", "I'll submit the exchange.", "Processing the exchange as agreed."), True)),
             ("I will exchange {items} for {new_items} on {order}, paying with {payment}. Proceed?",
              "Exchange {items} -> {new_items} in {order} using {payment}: yes?")),
        Flow("address", ("I moved, please update my address to {street}, {city}.", "Can you change my default address?",
                         "Please update my address on file."),
             ("My email is {email}.", "Email: {email}."),
             (_FIND_EMAIL, _USER,
              Call("modify_user_address", lambda e: {"user_id": e["user_id"], "address1": e["street"], "city": e["city"],
                                                     "zip": e["zip"]},
                   _user_obj, ("Updating your address now.", "I'll change the address.", "Saving the new address."), True)),
             ("I will set your address to {street}, {city} {zip}. Proceed?", "New address {street}, {city}: confirm?")),
        Flow("payment", ("Please change the payment method of {order}.", "I want to pay {order} with my gift card instead.",
                         "Can I switch the card used for {order}?"),
             ("{first} {last}, zip {zip}.", "I am {first} {last}, {zip}."),
             (_FIND_ZIP, _order("pending"), _USER,
              Call("modify_pending_order_payment", lambda e: {"order_id": e["order"], "payment_method_id": e["payment2"]},
                   lambda e: {"order_id": e["order"], "status": "pending"},
                   ("Switching the payment method now.", "I'll update the payment.", "Changing the payment as confirmed."),
                   True)),
             ("I will pay {order} with {payment2} instead. Proceed?", "Switch {order} to {payment2}: yes?")),
    ),
    (
        Call("cancel_pending_order", lambda e: {"order_id": e["order2"], "reason": e["reason"]},
             lambda e: {"order_id": e["order2"], "status": "cancelled"},
             ("I'll cancel the order now.", "Cancelling that order."), True),
        Call("return_delivered_order_items", lambda e: {"order_id": e["order"], "item_ids": e["items"][:1],
                                                        "payment_method_id": e["payment2"]},
             lambda e: {"status": "return requested"}, ("I'll process a return.", "Submitting a return."), True),
        Call("transfer_to_human_agents", lambda e: {"summary": "user needs help with their order"},
             lambda e: "Transfer successful", ("Let me transfer you to a human agent.", "I'll hand you over to a colleague."),
             True),
        Call("modify_pending_order_items", lambda e: {"order_id": e["order"], "item_ids": e["items"],
                                                      "new_item_ids": e["new_items"][: len(e["items"])],
                                                      "payment_method_id": e["payment"]},
             lambda e: {"status": "pending (items modified)"}, ("Modifying the items now.", "I'll change the items."), True),
    ),
    (_PRODUCT, _USER, Call("list_all_product_types", lambda e: {}, lambda e: {"t-shirt": "1", "keyboard": "2"},
                           ("Let me list our product types.", "Checking the catalogue."))),
)

AIRLINE = Domain(
    "airline",
    "# Airline agent policy\nGet the user id first. Before booking, modifying or cancelling a reservation, list the "
    "details and get an explicit yes. Cancellation is allowed within 24 hours of booking or with insurance.",
    (
        Flow("cancel", ("I need to cancel reservation {reservation}.", "Please cancel my trip {reservation}.",
                        "Hi, cancel booking {reservation} please."),
             ("My user id is {user_id}.", "It's {user_id}."),
             (_USER, Call("get_reservation_details", lambda e: {"reservation_id": e["reservation"]},
                          lambda e: {"reservation_id": e["reservation"], "insurance": "yes", "flights": [e["flight"]]},
                          ("Let me open the reservation.", "Checking the reservation.", "I'll look at that booking.")),
              Call("cancel_reservation", lambda e: {"reservation_id": e["reservation"]},
                   lambda e: {"reservation_id": e["reservation"], "status": "cancelled"},
                   ("Cancelling the reservation now.", "I'll cancel it.", "Proceeding with the cancellation."), True)),
             ("I will cancel {reservation} with a refund to the original payment. Proceed?", "Cancel {reservation}: yes?")),
        Flow("book", ("I want to fly from {origin} to {dest} on {date}.", "Book me a flight {origin} to {dest}, {date}.",
                      "I need a one-way ticket {origin}-{dest} on {date}."),
             ("User id {user_id}.", "My id is {user_id}."),
             (_USER, Call("search_direct_flight", lambda e: {"origin": e["origin"], "destination": e["dest"], "date": e["date"]},
                          lambda e: [{"flight_number": e["flight"], "price": 230}, {"flight_number": e["flight2"], "price": 310}],
                          ("Let me search direct flights.", "Searching flights for that day.", "I'll check the flights.")),
              Call("book_reservation", lambda e: {"user_id": e["user_id"], "origin": e["origin"], "destination": e["dest"],
                                                  "flights": [{"flight_number": e["flight"], "date": e["date"]}],
                                                  "payment_id": e["payment"], "total_baggages": e["bags"]},
                   lambda e: {"reservation_id": e["reservation2"]},
                   ("Booking the flight now.", "I'll make the reservation.", "Placing the booking."), True)),
             ("I will book {flight} on {date} with {bags} bags, paid by {payment}. Proceed?",
              "Book {flight} {origin}-{dest} on {date}: confirm?")),
        Flow("bags", ("I need to add bags to {reservation}.", "Can I add {bags} checked bags to my booking {reservation}?",
                      "Please update the baggage on {reservation}."),
             ("User {user_id}.", "{user_id} is my id."),
             (_USER, Call("get_reservation_details", lambda e: {"reservation_id": e["reservation"]},
                          lambda e: {"reservation_id": e["reservation"], "total_baggages": 0},
                          ("Let me open the reservation.", "Checking the booking.", "I'll look at the reservation.")),
              Call("update_reservation_baggages", lambda e: {"reservation_id": e["reservation"], "total_baggages": e["bags"],
                                                             "payment_id": e["payment"]},
                   lambda e: {"reservation_id": e["reservation"], "total_baggages": e["bags"]},
                   ("Updating the bags now.", "I'll add the bags.", "Saving the baggage change."), True)),
             ("I will set {bags} bags on {reservation}, charged to {payment}. Proceed?", "Add {bags} bags: yes?")),
        Flow("certificate", ("My flight {flight} was delayed, I want compensation.", "I'd like a voucher for the delay.",
                             "The delay of {flight} ruined my day."),
             ("My id is {user_id}.", "User id {user_id}."),
             (_USER, Call("get_reservation_details", lambda e: {"reservation_id": e["reservation"]},
                          lambda e: {"reservation_id": e["reservation"], "flights": [e["flight"]], "status": "delayed"},
                          ("Let me verify the reservation.", "Checking your booking.", "I'll look at the flight.")),
              Call("send_certificate", lambda e: {"user_id": e["user_id"], "amount": e["amount"]},
                   lambda e: f"Certificate of {e['amount']} sent",
                   ("Sending the certificate now.", "I'll issue the voucher.", "Issuing the compensation."), True)),
             ("I can offer a {amount} dollar certificate. Shall I send it?", "A {amount} certificate: confirm?")),
    ),
    (
        Call("cancel_reservation", lambda e: {"reservation_id": e["reservation2"]}, lambda e: {"status": "cancelled"},
             ("Cancelling the reservation.", "I'll cancel that booking."), True),
        Call("transfer_to_human_agents", lambda e: {"summary": "customer request"}, lambda e: "Transfer successful",
             ("I'll transfer you to a human agent.", "Let me hand you to a colleague."), True),
        Call("update_reservation_flights", lambda e: {"reservation_id": e["reservation"], "cabin": "economy",
                                                      "flights": [{"flight_number": e["flight2"], "date": e["date"]}],
                                                      "payment_id": e["payment"]},
             lambda e: {"status": "updated"}, ("Changing the flights now.", "I'll rebook the flight."), True),
    ),
    (Call("get_reservation_details", lambda e: {"reservation_id": e["reservation2"]},
          lambda e: {"reservation_id": e["reservation2"]}, ("Let me check your other booking too.",
                                                             "I'll also look at your other reservation.")),
     Call("list_all_airports", lambda e: {}, lambda e: ["JFK", "SFO", "SEA"], ("Let me list the airports.",
                                                                                "Checking the airports."))),
)

BANK = Domain(
    "bank",
    "# Bank agent policy\nVerify the customer by name and date of birth. Transfers, card freezes and disputes need "
    "an explicit confirmation. Never share another customer's data.",
    (
        Flow("transfer", ("Send {amount} dollars from {account} to {account2}.", "I want to move {amount} to {account2}.",
                          "Please transfer {amount} from my account."),
             ("{first} {last}, born {dob}.", "I'm {first} {last}, date of birth {dob}."),
             (Call("verify_customer", lambda e: {"name": f"{e['first']} {e['last']}", "dob": e["dob"]},
                   lambda e: {"customer_id": e["user_id"]}, ("Let me verify you.", "Verifying your identity.",
                                                              "I'll check your identity first.")),
              Call("get_account", lambda e: {"account_id": e["account"]}, lambda e: {"balance": 1200, "status": "open"},
                   ("Checking the account balance.", "Let me open the account.", "I'll look at the account.")),
              Call("transfer_funds", lambda e: {"from_account": e["account"], "to_account": e["account2"], "amount": e["amount"]},
                   lambda e: {"status": "completed"}, ("Making the transfer.", "Sending the money now.",
                                                        "Processing the transfer."), True)),
             ("I will transfer {amount} from {account} to {account2}. Proceed?", "Transfer {amount} to {account2}: yes?")),
        Flow("freeze", ("I lost my card {card}.", "Please freeze my card {card}.", "My card {card} was stolen."),
             ("{first} {last}, {dob}.", "Name {first} {last}, dob {dob}."),
             (Call("verify_customer", lambda e: {"name": f"{e['first']} {e['last']}", "dob": e["dob"]},
                   lambda e: {"customer_id": e["user_id"]}, ("Let me verify you.", "Verifying your identity.",
                                                              "I'll check your identity first.")),
              Call("get_card", lambda e: {"card_id": e["card"]}, lambda e: {"card_id": e["card"], "status": "active"},
                   ("Let me find the card.", "Checking the card.", "I'll look up that card.")),
              Call("freeze_card", lambda e: {"card_id": e["card"]}, lambda e: {"status": "frozen"},
                   ("Freezing the card now.", "I'll block the card.", "Blocking it right away."), True)),
             ("I will freeze card {card}. Proceed?", "Freeze {card}: confirm?")),
        Flow("dispute", ("I don't recognise transaction {txn}.", "Please dispute {txn}.", "There's a wrong charge {txn}."),
             ("I'm {first} {last}, born {dob}.", "{first} {last} / {dob}."),
             (Call("verify_customer", lambda e: {"name": f"{e['first']} {e['last']}", "dob": e["dob"]},
                   lambda e: {"customer_id": e["user_id"]}, ("Let me verify you.", "Verifying your identity.",
                                                              "I'll check your identity first.")),
              Call("get_transaction", lambda e: {"transaction_id": e["txn"]}, lambda e: {"amount": e["amount"], "merchant": "ACME"},
                   ("Let me look at the transaction.", "Checking that charge.", "I'll open the transaction.")),
              Call("dispute_transaction", lambda e: {"transaction_id": e["txn"], "reason": "unrecognised"},
                   lambda e: {"status": "dispute opened"}, ("Opening the dispute.", "I'll file the dispute.",
                                                             "Filing it now."), True)),
             ("I will dispute {txn} as unrecognised. Proceed?", "Dispute {txn}: yes?")),
    ),
    (
        Call("freeze_card", lambda e: {"card_id": e["card"]}, lambda e: {"status": "frozen"},
             ("Freezing the card.", "I'll block your card."), True),
        Call("transfer_funds", lambda e: {"from_account": e["account2"], "to_account": e["account"], "amount": e["amount"]},
             lambda e: {"status": "completed"}, ("Making a transfer.", "Sending money."), True),
        Call("transfer_to_human_agents", lambda e: {"summary": "customer request"}, lambda e: "Transfer successful",
             ("I'll transfer you to a colleague.", "Handing you to a human agent."), True),
    ),
    (Call("get_account", lambda e: {"account_id": e["account2"]}, lambda e: {"balance": 40},
          ("Let me check the other account too.", "I'll also look at the second account.")),
     Call("list_accounts", lambda e: {"customer_id": e["user_id"]}, lambda e: [e["account"], e["account2"]],
          ("Let me list your accounts.", "Checking all your accounts."))),
)

DOMAINS = {d.name: d for d in (RETAIL, AIRLINE, BANK)}
PLANT_KINDS = ("different_action", "different_arguments", "missing_action", "extra_action")
_OPEN_ID = ("Happy to help. Could you first give me your details so I can verify you?",
            "Sure. To start, I need to authenticate you: please share your details.",
            "I can help with that. First, please provide your identification details.")
_CLOSE = ("All done. Is there anything else I can help with?", "That's complete. Anything else?",
          "Everything is taken care of. Can I help with something else?")
_USER_YES = ("Yes, please go ahead.", "Yes.", "Yes, proceed.")
_USER_BYE = ("No, that's all, thanks! ###STOP###", "That's it, thank you. ###STOP###")
_FALSE_DONE = ("Done, it's all been taken care of for you.", "I've completed that for you, you're all set.",
               "That has been processed successfully.")


def _fmt(text: str, e: Entity) -> str:
    return text.format(**{k: (", ".join(v) if isinstance(v, list) else v) for k, v in e.items()})


class _Conversation:
    """Builds one ``traj`` message list."""

    def __init__(self, domain: Domain, rng: random.Random) -> None:
        self.rng = rng
        self.msgs: list[dict[str, Any]] = [{"role": "system", "content": domain.policy}]
        self.calls = 0
        self.actions: list[dict[str, Any]] = []

    def user(self, text: str) -> None:
        self.msgs.append({"role": "user", "content": text})

    def say(self, text: str) -> int:
        self.msgs.append({"role": "assistant", "content": text, "tool_calls": None})
        return len(self.msgs) - 1

    def call(self, c: Call, e: Entity) -> int:
        self.calls += 1
        cid = f"call_{self.calls:03d}_{self.rng.randint(1000, 9999)}"
        args = c.args(e)
        self.msgs.append({"role": "assistant", "content": self.rng.choice(c.says), "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": c.tool, "arguments": json.dumps(args)}}]})
        at = len(self.msgs) - 1
        result = c.result(e)
        self.msgs.append({"role": "tool", "tool_call_id": cid, "name": c.tool,
                          "content": result if isinstance(result, str) else json.dumps(result)})
        self.actions.append({"name": c.tool, "kwargs": args})
        return at

    def consequential(self, c: Call, e: Entity, flow: Flow) -> int:
        self.say(_fmt(self.rng.choice(flow.confirm), e))
        self.user(self.rng.choice(_USER_YES))
        return self.call(c, e)


def _wrong_args(e: Entity, rng: random.Random) -> Entity:
    """The entity with the values a mistaken agent would use (another order, item, payment ...)."""
    w = dict(e)
    swap = [("order", "order2"), ("payment", "payment2"), ("reservation", "reservation2"), ("account", "account2"),
            ("product", "product2"), ("flight", "flight2")]
    for a, b in swap:
        w[a], w[b] = e[b], e[a]
    w["items"] = [i[::-1] for i in e["items"]]
    w["new_items"] = list(reversed(e["new_items"]))
    w["amount"] = e["amount"] * 10
    w["bags"] = e["bags"] + 2
    w["zip"] = e["zip"][::-1]
    w["email"] = "x" + e["email"]
    w["user_id"] = e["user_id"] + "0"
    w["dob"] = e["dob"].replace("19", "20", 1)
    w["street"] = "1 Wrong Road"
    w["reason"] = "ordered by mistake" if e["reason"] == "no longer needed" else "no longer needed"
    w["txn"] = e["txn"][::-1]
    w["card"] = e["card"][::-1]
    return w


def _run(domain: Domain, flow: Flow, e: Entity, rng: random.Random, plant: str | None,
         extra_lookup: float) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """One run's messages, and the planted divergence (None for a success)."""
    conv = _Conversation(domain, rng)
    conv.user(_fmt(rng.choice(flow.goal), e))
    conv.say(rng.choice(_OPEN_ID))
    conv.user(_fmt(rng.choice(flow.identify), e))
    at = rng.randrange(1, len(flow.calls)) if plant else -1  # the planted call (never the identification)
    planted: dict[str, Any] | None = None
    for k, c in enumerate(flow.calls):
        if plant and k == at:
            planted = _plant(conv, domain, flow, c, e, rng, plant)
            break
        if plant is None and k > 0 and rng.random() < extra_lookup and not c.consequential:
            conv.call(rng.choice(domain.lookups), e)
        if c.consequential:
            conv.consequential(c, e, flow)
        else:
            conv.call(c, e)
    conv.say(rng.choice(_CLOSE))
    conv.user(rng.choice(_USER_BYE))
    return conv.msgs, planted


def _plant(conv: _Conversation, domain: Domain, flow: Flow, c: Call, e: Entity, rng: random.Random,
           kind: str) -> dict[str, Any]:
    """Leave the path at call ``c``; the run ends a little later."""
    if kind == "different_action":
        decoy = rng.choice([d for d in domain.decoys if d.tool != c.tool])
        msg = conv.consequential(decoy, e, flow) if decoy.consequential and c.consequential else conv.call(decoy, e)
    elif kind == "different_arguments":
        wrong = _wrong_args(e, rng)
        if c.args(wrong) == c.args(e):
            wrong["order"] = e["order2"]
        msg = conv.consequential(c, wrong, flow) if c.consequential else conv.call(c, wrong)
    elif kind == "missing_action":
        if c.consequential:
            conv.say(_fmt(rng.choice(flow.confirm), e))
            conv.user(rng.choice(_USER_YES))
        msg = conv.say(rng.choice(_FALSE_DONE))
        conv.user(rng.choice(("Great.", "Thanks, is it really done?", "Okay.")))
    else:  # extra_action
        decoy = rng.choice([d for d in domain.decoys if d.tool != c.tool])
        msg = conv.call(decoy, e)
        if c.consequential:
            conv.consequential(c, e, flow)
        else:
            conv.call(c, e)
    return {"message": msg, "kind": kind}


def task_records(domain_name: str, n_tasks: int, runs_per_task: int, seed: int,
                 extra_lookup: float = 0.2) -> list[dict[str, Any]]:
    """tau-bench result records: ``n_tasks`` tasks × ``runs_per_task`` trials, with planted failures.

    Each task has a success and a failure at least; failures carry ``metadata.planted_divergence``.

    A task id names the same task (user, order, expected calls) in every call; the seed draws the
    runs (outcomes, wording, planted divergences).

    Args:
        domain_name: ``retail``, ``airline`` or ``bank``.
        n_tasks: Tasks.
        runs_per_task: Trials per task (at least 2).
        seed: Random seed (the same seed gives the same records).
        extra_lookup: Chance that a success makes a harmless extra look-up before a call.
    """
    domain = DOMAINS[domain_name]
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for task_id in range(n_tasks):
        flow = domain.flows[task_id % len(domain.flows)]
        e = _entity(random.Random(f"{domain.name}:{task_id}"))  # one task id is one task, whatever the seed
        n_fail = rng.randint(1, runs_per_task - 1)
        outcomes = [False] * n_fail + [True] * (runs_per_task - n_fail)
        rng.shuffle(outcomes)
        expected = _Conversation(domain, random.Random(0))
        for c in flow.calls:
            expected.call(c, e)
        for trial, ok in enumerate(outcomes):
            plant = None if ok else rng.choice(PLANT_KINDS)
            msgs, planted = _run(domain, flow, e, rng, plant, extra_lookup)
            record: dict[str, Any] = {
                "task_id": task_id, "reward": 1.0 if ok else 0.0,
                "info": {"task": {"user_id": e["user_id"], "instruction": _fmt(flow.goal[0], e),
                                  "actions": expected.actions, "outputs": []},
                         "env": domain.name, "flow": flow.name},
                "traj": msgs, "trial": trial,
            }
            if planted is not None:
                record["metadata"] = {"planted_divergence": planted}
            out.append(record)
    return out
