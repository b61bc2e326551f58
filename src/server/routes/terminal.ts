import { defineRoute } from '../route';
import { ErrorBody, GatewayErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { TerminalRequest, TerminalResponse } from '../../shared/schemas/lanes';

export const terminalCommand = defineRoute({
  method: 'post',
  path: '/api/gateway/v1/terminal',
  operationId: 'terminalCommand',
  // A command and a lane: a cashier's session sends them (see REGISTER_BODY_LIMIT).
  bodyLimit: '64kb',
  tags: ['Card Present EMV'],
  summary: 'Issue a direct command to a POS terminal e.g. DeviceSetup, RequestSignature, Cancel, DeviceStatus',
  description: [
    'Commands go to the device of lane `laneid` (see /api/lanes). The answer is `{success}`; with `success: false` it also carries a stable code in `errors` (`lane_offline`, `device_busy`, `timeout`, `cancelled`, `device_error`, `no_payment`) and `error` in words. Every answer names the lane\'s `status`.',
    '',
    '- **DeviceSetup** sends the lane\'s settings (name, merchant name, currency, tip and signature settings). It also happens by itself whenever the device connects or restarts, and when the settings change.',
    '- **DeviceStatus** asks the device; `device` carries firmware, model, serial number, whether a card is inserted and whether it is busy. Works while a payment waits for the card.',
    '- **RequestSignature** asks the customer to sign for the lane\'s last approved card-present payment (`last_payment` on the lane); the image is stored with that payment (`signature.request_id`). Refused with `device_busy` while a payment is in progress, `no_payment` when there is none.',
    '- **Cancel** works while the lane is busy. A payment still waiting for the card is stopped before anything reaches the card network (`cancel_result: cancelled`); a payment already sent for authorization cannot be taken back on the device, so it is voided instead (`cancel_result: voiding`); otherwise the device returns to idle (`idle`).',
    '',
    'One payment or exclusive command (DeviceSetup, RequestSignature) holds a lane at a time; a second gets `success: false` with `device_busy`. An unknown lane is answered with 500 `{success: false, errors: ["lane_not_found"]}`, as the gateway answers an unknown order.',
  ].join('\n'),
  body: TerminalRequest,
  errorShape: 'gateway',
  responses: {
    200: { description: 'The device\'s answer (`success` true or false)', schema: ref(TerminalResponse) },
    412: { description: 'The account is not enabled for card-present EMV (`capability_disabled`)', schema: ref(ErrorBody) },
    500: { description: '`lane_not_found`, or a malformed request (`validation_failed`: an unknown command, no laneid)', schema: ref(GatewayErrorBody) },
  },
  async handler({ engine, body }) {
    return { body: await engine.lanes.command(body.laneid, body.command) };
  },
});

export const terminalRoutes = [terminalCommand];
