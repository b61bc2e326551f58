// The shop's page: shows the payment frame, collects the tokens it approves (and the partial
// payments of gift cards), and hands them to the shop's server, which creates the sale.
const form = document.querySelector('#form');
const submit = document.querySelector('#submit');
const submitError = document.querySelector('#submitError');
const result = document.querySelector('#result');
const list = document.querySelector('#payments');

async function main() {
  const customer = new URLSearchParams(location.search).get('customer');
  const { sessionId } = await (await fetch('/checkout/session', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ customer }) })).json();
  const styles = { input: { 'font-size': '15px', color: '#222' }, label: { 'font-weight': '600' } };
  const client = versapay.initClient(sessionId, styles, []);
  const payments = [];

  const note = (text) => {
    const li = document.createElement('li');
    li.textContent = text;
    list.appendChild(li);
  };

  client.onPartialPayment((r) => {
    payments.push({ type: r.paymentType, token: r.token, amount: r.amount });
    note(`${r.paymentTypeName}: ${r.amount.toFixed(2)} (partial; ${r.remaining.toFixed(2)} left)`);
  });

  client.onApproval(
    async (r) => {
      submitError.textContent = '';
      payments.push({ type: r.paymentType, token: r.token, amount: r.amount });
      note(`${r.paymentTypeName}: ${r.amount.toFixed(2)}`);
      const street = document.querySelector('#street').value;
      const postCode = document.querySelector('#postCode').value;
      const res = await fetch('/checkout/pay', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ sessionId, billing: { street, postCode }, payments }) });
      const body = await res.json();
      if (res.ok) {
        result.textContent = `Paid: order ${body.orderId}${body.finalized ? ' (finalized)' : ''}`;
        submit.disabled = true;
      } else {
        // The declined payment is not kept: the buyer can try another method.
        payments.pop();
        result.textContent = `Not paid: ${body.message}`;
      }
    },
    (error) => {
      submitError.textContent = error.error;
    },
  );

  await client.initFrame(document.querySelector('#container'), '420px', '480px');
  submit.removeAttribute('disabled');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    result.textContent = '';
    client.submitEvents();
  });
}

main().catch((err) => {
  result.textContent = `The checkout could not start: ${err.message}`;
});
