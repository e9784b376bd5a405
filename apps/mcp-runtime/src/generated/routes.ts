/* tslint:disable */
/* eslint-disable */
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import type { TsoaRoute } from '@tsoa/runtime';
import {  fetchMiddlewares, ExpressTemplateService } from '@tsoa/runtime';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { UsageController } from './../controllers/usage/usage-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { ToolCallRecordsController } from './../controllers/tool-call-records/tool-call-records-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { ToolPackSecurityRulesController } from './../controllers/security-rules/tool-pack-security-rules-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { SecurityRulesController } from './../controllers/security-rules/security-rules-controller';
import { expressAuthentication } from './../authentication';
// @ts-ignore - no great way to install types from subpackage
import type { Request as ExRequest, Response as ExResponse, RequestHandler, Router } from 'express';

const expressAuthenticationRecasted = expressAuthentication as (req: ExRequest, securityName: string, scopes?: string[], res?: ExResponse) => Promise<any>;


// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

const models: TsoaRoute.Models = {
    "FieldError": {
        "dataType": "refObject",
        "properties": {
            "field": {"dataType":"string","required":true},
            "message": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ErrorBody": {
        "dataType": "refObject",
        "properties": {
            "detail": {"dataType":"string","required":true},
            "code": {"dataType":"string","required":true},
            "errors": {"dataType":"array","array":{"dataType":"refObject","ref":"FieldError"}},
        },
        "additionalProperties": {"dataType":"any"},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UsageView": {
        "dataType": "refObject",
        "properties": {
            "cycle": {"dataType":"string","required":true},
            "period_start": {"dataType":"string","required":true},
            "period_end": {"dataType":"string","required":true},
            "plan": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["free"]},{"dataType":"enum","enums":["paid"]}],"required":true},
            "monthly_credits": {"dataType":"double","required":true},
            "credits_used": {"dataType":"double","required":true},
            "credits_remaining": {"dataType":"double","required":true},
            "overage_credits": {"dataType":"double","required":true},
            "billing_limit_reached": {"dataType":"boolean","required":true},
            "rate_limit_per_minute": {"dataType":"double","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DailyUsageTotals": {
        "dataType": "refObject",
        "properties": {
            "tool_calls": {"dataType":"double","required":true},
            "failures": {"dataType":"double","required":true},
            "blocked": {"dataType":"double","required":true},
            "credits": {"dataType":"double","required":true},
            "credits_all_environments": {"dataType":"double","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DailyUsageRow": {
        "dataType": "refObject",
        "properties": {
            "tool_calls": {"dataType":"double","required":true},
            "failures": {"dataType":"double","required":true},
            "blocked": {"dataType":"double","required":true},
            "credits": {"dataType":"double","required":true},
            "credits_all_environments": {"dataType":"double","required":true},
            "date": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DailyUsageView": {
        "dataType": "refObject",
        "properties": {
            "time_zone": {"dataType":"enum","enums":["UTC"],"required":true},
            "environment": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["production"]},{"dataType":"enum","enums":["test"]}],"required":true},
            "start": {"dataType":"string","required":true},
            "end": {"dataType":"string","required":true},
            "cycle": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "totals": {"ref":"DailyUsageTotals","required":true},
            "days": {"dataType":"array","array":{"dataType":"refObject","ref":"DailyUsageRow"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Status": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["success"]},{"dataType":"enum","enums":["error"]},{"dataType":"enum","enums":["blocked"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ToolCallDetection": {
        "dataType": "refObject",
        "properties": {
            "rule_id": {"dataType":"string","required":true},
            "rule_name": {"dataType":"string","required":true},
            "kind": {"dataType":"string","required":true},
            "direction": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["inbound"]},{"dataType":"enum","enums":["outbound"]}],"required":true},
            "action": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["allow"]},{"dataType":"enum","enums":["redact"]},{"dataType":"enum","enums":["block"]}],"required":true},
            "path": {"dataType":"string","required":true},
            "count": {"dataType":"double","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ToolCallRecordView": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "tool_name": {"dataType":"string","required":true},
            "connector_slug": {"dataType":"string","required":true},
            "tool_pack_id": {"dataType":"string","required":true},
            "registered_user_id": {"dataType":"string","required":true},
            "access_key_id": {"dataType":"string","required":true},
            "status": {"ref":"Status","required":true},
            "error_code": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "duration_ms": {"dataType":"double","required":true},
            "credits": {"dataType":"double","required":true},
            "billing_cycle": {"dataType":"string","required":true},
            "overage": {"dataType":"boolean","required":true},
            "detections": {"dataType":"array","array":{"dataType":"refObject","ref":"ToolCallDetection"},"required":true},
            "occurred_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CursorList_ToolCallRecordView_": {
        "dataType": "refObject",
        "properties": {
            "next": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "previous": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "results": {"dataType":"array","array":{"dataType":"refObject","ref":"ToolCallRecordView"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ToolCallRecordDetail": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "tool_name": {"dataType":"string","required":true},
            "connector_slug": {"dataType":"string","required":true},
            "tool_pack_id": {"dataType":"string","required":true},
            "registered_user_id": {"dataType":"string","required":true},
            "access_key_id": {"dataType":"string","required":true},
            "status": {"ref":"Status","required":true},
            "error_code": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "duration_ms": {"dataType":"double","required":true},
            "credits": {"dataType":"double","required":true},
            "billing_cycle": {"dataType":"string","required":true},
            "overage": {"dataType":"boolean","required":true},
            "detections": {"dataType":"array","array":{"dataType":"refObject","ref":"ToolCallDetection"},"required":true},
            "occurred_at": {"dataType":"string","required":true},
            "arguments": {"dataType":"any","required":true},
            "result": {"dataType":"any","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RuleAction": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["allow"]},{"dataType":"enum","enums":["redact"]},{"dataType":"enum","enums":["block"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RuleOverrideRecord": {
        "dataType": "refObject",
        "properties": {
            "action": {"dataType":"union","subSchemas":[{"ref":"RuleAction"},{"dataType":"enum","enums":[null]}],"required":true},
            "enabled": {"dataType":"union","subSchemas":[{"dataType":"boolean"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PackSecurityRuleRecord": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "detector": {"dataType":"string","required":true},
            "pattern": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "flags": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "label": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "direction": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["inbound"]},{"dataType":"enum","enums":["outbound"]},{"dataType":"enum","enums":["both"]}],"required":true},
            "action": {"ref":"RuleAction","required":true},
            "enabled": {"dataType":"boolean","required":true},
            "created_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
            "override": {"dataType":"union","subSchemas":[{"ref":"RuleOverrideRecord"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PackSecurityRuleList": {
        "dataType": "refObject",
        "properties": {
            "tool_pack_id": {"dataType":"string","required":true},
            "results": {"dataType":"array","array":{"dataType":"refObject","ref":"PackSecurityRuleRecord"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RuleOverrideInput": {
        "dataType": "refObject",
        "properties": {
            "action": {"dataType":"union","subSchemas":[{"ref":"RuleAction"},{"dataType":"enum","enums":[null]}]},
            "enabled": {"dataType":"union","subSchemas":[{"dataType":"boolean"},{"dataType":"enum","enums":[null]}]},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SecurityRuleRecord": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "detector": {"dataType":"string","required":true},
            "pattern": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "flags": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "label": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "direction": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["inbound"]},{"dataType":"enum","enums":["outbound"]},{"dataType":"enum","enums":["both"]}],"required":true},
            "action": {"ref":"RuleAction","required":true},
            "enabled": {"dataType":"boolean","required":true},
            "created_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PaginatedList_SecurityRuleRecord_": {
        "dataType": "refObject",
        "properties": {
            "count": {"dataType":"double","required":true},
            "next": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "previous": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "results": {"dataType":"array","array":{"dataType":"refObject","ref":"SecurityRuleRecord"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SecurityRuleBody": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "detector": {"dataType":"string","required":true},
            "pattern": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "flags": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "label": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "direction": {"dataType":"string","required":true},
            "action": {"dataType":"string","required":true},
            "enabled": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SampleKind": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["text"]},{"dataType":"enum","enums":["arguments"]},{"dataType":"enum","enums":["result"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RuleTestBlock": {
        "dataType": "refObject",
        "properties": {
            "rule_id": {"dataType":"string","required":true},
            "rule_name": {"dataType":"string","required":true},
            "kind": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RuleTestDetection": {
        "dataType": "refObject",
        "properties": {
            "rule_id": {"dataType":"string","required":true},
            "rule_name": {"dataType":"string","required":true},
            "kind": {"dataType":"string","required":true},
            "direction": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["inbound"]},{"dataType":"enum","enums":["outbound"]}],"required":true},
            "action": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["allow"]},{"dataType":"enum","enums":["redact"]},{"dataType":"enum","enums":["block"]}],"required":true},
            "path": {"dataType":"string","required":true},
            "count": {"dataType":"double","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RuleTestSampleResult": {
        "dataType": "refObject",
        "properties": {
            "sample": {"ref":"SampleKind","required":true},
            "direction": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["inbound"]},{"dataType":"enum","enums":["outbound"]}],"required":true},
            "output": {"dataType":"any","required":true},
            "blocked": {"dataType":"union","subSchemas":[{"ref":"RuleTestBlock"},{"dataType":"enum","enums":[null]}],"required":true},
            "detections": {"dataType":"array","array":{"dataType":"refObject","ref":"RuleTestDetection"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RuleTestMatch": {
        "dataType": "refObject",
        "properties": {
            "sample": {"ref":"SampleKind","required":true},
            "direction": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["inbound"]},{"dataType":"enum","enums":["outbound"]}],"required":true},
            "path": {"dataType":"string","required":true},
            "count": {"dataType":"double","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RuleTestRuleResult": {
        "dataType": "refObject",
        "properties": {
            "rule_id": {"dataType":"string","required":true},
            "rule_name": {"dataType":"string","required":true},
            "detector": {"dataType":"string","required":true},
            "kind": {"dataType":"string","required":true},
            "direction": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["inbound"]},{"dataType":"enum","enums":["outbound"]},{"dataType":"enum","enums":["both"]}],"required":true},
            "action": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["allow"]},{"dataType":"enum","enums":["redact"]},{"dataType":"enum","enums":["block"]}],"required":true},
            "enabled": {"dataType":"boolean","required":true},
            "fired": {"dataType":"boolean","required":true},
            "outcome": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["blocked"]},{"dataType":"enum","enums":["redacted"]},{"dataType":"enum","enums":["recorded"]},{"dataType":"enum","enums":["nothing"]}],"required":true},
            "matches": {"dataType":"array","array":{"dataType":"refObject","ref":"RuleTestMatch"},"required":true},
            "outputs": {"dataType":"array","array":{"dataType":"nestedObjectLiteral","nestedProperties":{"output":{"dataType":"any","required":true},"direction":{"dataType":"union","subSchemas":[{"dataType":"enum","enums":["inbound"]},{"dataType":"enum","enums":["outbound"]}],"required":true},"sample":{"ref":"SampleKind","required":true}}},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RuleTestResult": {
        "dataType": "refObject",
        "properties": {
            "samples": {"dataType":"array","array":{"dataType":"refObject","ref":"RuleTestSampleResult"},"required":true},
            "rules": {"dataType":"array","array":{"dataType":"refObject","ref":"RuleTestRuleResult"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Record_string.unknown_": {
        "dataType": "refAlias",
        "type": {"dataType":"nestedObjectLiteral","nestedProperties":{},"additionalProperties":{"dataType":"any"},"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RuleTestBody": {
        "dataType": "refObject",
        "properties": {
            "text": {"dataType":"string"},
            "arguments": {"ref":"Record_string.unknown_"},
            "result": {"ref":"Record_string.unknown_"},
            "tool_pack_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "rule": {"dataType":"union","subSchemas":[{"ref":"Record_string.unknown_"},{"dataType":"enum","enums":[null]}]},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SecurityRulePatchBody": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string"},
            "detector": {"dataType":"string"},
            "pattern": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "flags": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "label": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "direction": {"dataType":"string"},
            "action": {"dataType":"string"},
            "enabled": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
};
const templateService = new ExpressTemplateService(models, {"noImplicitAdditionalProperties":"throw-on-extras","bodyCoercion":true});

// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa




export function RegisterRoutes(app: Router) {

    // ###########################################################################################################
    //  NOTE: If you do not see routes for all of your controllers in this file, then you might not have informed tsoa of where to look
    //      Please look into the "controllerPathGlobs" config option described in the readme: https://github.com/lukeautry/tsoa
    // ###########################################################################################################


    
        const argsUsageController_getUsage: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                cycle: {"in":"query","name":"cycle","dataType":"string"},
        };
        app.get('/api/v1/usage',
            authenticateMiddleware([{"session":["view_billing"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(UsageController)),
            ...(fetchMiddlewares<RequestHandler>(UsageController.prototype.getUsage)),

            async function UsageController_getUsage(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsUsageController_getUsage, request, response });

                const controller = new UsageController();

              await templateService.apiHandler({
                methodName: 'getUsage',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsUsageController_getDailyUsage: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                cycle: {"in":"query","name":"cycle","dataType":"string"},
                start: {"in":"query","name":"start","dataType":"string"},
                end: {"in":"query","name":"end","dataType":"string"},
        };
        app.get('/api/v1/usage/daily',
            authenticateMiddleware([{"session":["view_billing"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(UsageController)),
            ...(fetchMiddlewares<RequestHandler>(UsageController.prototype.getDailyUsage)),

            async function UsageController_getDailyUsage(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsUsageController_getDailyUsage, request, response });

                const controller = new UsageController();

              await templateService.apiHandler({
                methodName: 'getDailyUsage',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsToolCallRecordsController_listToolCallRecords: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                registered_user_id: {"in":"query","name":"registered_user_id","dataType":"string"},
                tool_pack_id: {"in":"query","name":"tool_pack_id","dataType":"string"},
                tool_name: {"in":"query","name":"tool_name","dataType":"string"},
                connector_slug: {"in":"query","name":"connector_slug","dataType":"string"},
                status: {"in":"query","name":"status","dataType":"string"},
                created_after: {"in":"query","name":"created_after","dataType":"string"},
                created_before: {"in":"query","name":"created_before","dataType":"string"},
                cursor: {"in":"query","name":"cursor","dataType":"string"},
                page_size: {"in":"query","name":"page_size","dataType":"string"},
        };
        app.get('/api/v1/tool-call-records',
            authenticateMiddleware([{"session":["view_tool_call_records"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ToolCallRecordsController)),
            ...(fetchMiddlewares<RequestHandler>(ToolCallRecordsController.prototype.listToolCallRecords)),

            async function ToolCallRecordsController_listToolCallRecords(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsToolCallRecordsController_listToolCallRecords, request, response });

                const controller = new ToolCallRecordsController();

              await templateService.apiHandler({
                methodName: 'listToolCallRecords',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsToolCallRecordsController_getToolCallRecord: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                record_id: {"in":"path","name":"record_id","required":true,"dataType":"string"},
        };
        app.get('/api/v1/tool-call-records/:record_id',
            authenticateMiddleware([{"session":["view_tool_call_records"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ToolCallRecordsController)),
            ...(fetchMiddlewares<RequestHandler>(ToolCallRecordsController.prototype.getToolCallRecord)),

            async function ToolCallRecordsController_getToolCallRecord(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsToolCallRecordsController_getToolCallRecord, request, response });

                const controller = new ToolCallRecordsController();

              await templateService.apiHandler({
                methodName: 'getToolCallRecord',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsToolPackSecurityRulesController_listToolPackSecurityRules: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                tool_pack_id: {"in":"path","name":"tool_pack_id","required":true,"dataType":"string"},
        };
        app.get('/api/v1/tool-packs/:tool_pack_id/security-rules',
            authenticateMiddleware([{"session":["view_security_rules"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ToolPackSecurityRulesController)),
            ...(fetchMiddlewares<RequestHandler>(ToolPackSecurityRulesController.prototype.listToolPackSecurityRules)),

            async function ToolPackSecurityRulesController_listToolPackSecurityRules(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsToolPackSecurityRulesController_listToolPackSecurityRules, request, response });

                const controller = new ToolPackSecurityRulesController();

              await templateService.apiHandler({
                methodName: 'listToolPackSecurityRules',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsToolPackSecurityRulesController_putSecurityRuleOverride: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                tool_pack_id: {"in":"path","name":"tool_pack_id","required":true,"dataType":"string"},
                rule_id: {"in":"path","name":"rule_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"RuleOverrideInput"},
        };
        app.put('/api/v1/tool-packs/:tool_pack_id/security-rules/:rule_id/override',
            authenticateMiddleware([{"session":["manage_security_rules"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ToolPackSecurityRulesController)),
            ...(fetchMiddlewares<RequestHandler>(ToolPackSecurityRulesController.prototype.putSecurityRuleOverride)),

            async function ToolPackSecurityRulesController_putSecurityRuleOverride(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsToolPackSecurityRulesController_putSecurityRuleOverride, request, response });

                const controller = new ToolPackSecurityRulesController();

              await templateService.apiHandler({
                methodName: 'putSecurityRuleOverride',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsToolPackSecurityRulesController_deleteSecurityRuleOverride: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                tool_pack_id: {"in":"path","name":"tool_pack_id","required":true,"dataType":"string"},
                rule_id: {"in":"path","name":"rule_id","required":true,"dataType":"string"},
        };
        app.delete('/api/v1/tool-packs/:tool_pack_id/security-rules/:rule_id/override',
            authenticateMiddleware([{"session":["manage_security_rules"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ToolPackSecurityRulesController)),
            ...(fetchMiddlewares<RequestHandler>(ToolPackSecurityRulesController.prototype.deleteSecurityRuleOverride)),

            async function ToolPackSecurityRulesController_deleteSecurityRuleOverride(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsToolPackSecurityRulesController_deleteSecurityRuleOverride, request, response });

                const controller = new ToolPackSecurityRulesController();

              await templateService.apiHandler({
                methodName: 'deleteSecurityRuleOverride',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSecurityRulesController_listSecurityRules: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                page: {"in":"query","name":"page","dataType":"string"},
                page_size: {"in":"query","name":"page_size","dataType":"string"},
        };
        app.get('/api/v1/security-rules',
            authenticateMiddleware([{"session":["view_security_rules"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(SecurityRulesController)),
            ...(fetchMiddlewares<RequestHandler>(SecurityRulesController.prototype.listSecurityRules)),

            async function SecurityRulesController_listSecurityRules(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSecurityRulesController_listSecurityRules, request, response });

                const controller = new SecurityRulesController();

              await templateService.apiHandler({
                methodName: 'listSecurityRules',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSecurityRulesController_createSecurityRule: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                body: {"in":"body","name":"body","required":true,"ref":"SecurityRuleBody"},
        };
        app.post('/api/v1/security-rules',
            authenticateMiddleware([{"session":["manage_security_rules"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(SecurityRulesController)),
            ...(fetchMiddlewares<RequestHandler>(SecurityRulesController.prototype.createSecurityRule)),

            async function SecurityRulesController_createSecurityRule(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSecurityRulesController_createSecurityRule, request, response });

                const controller = new SecurityRulesController();

              await templateService.apiHandler({
                methodName: 'createSecurityRule',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSecurityRulesController_testSecurityRules: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                body: {"in":"body","name":"body","required":true,"ref":"RuleTestBody"},
        };
        app.post('/api/v1/security-rules/test',
            authenticateMiddleware([{"session":["view_security_rules"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(SecurityRulesController)),
            ...(fetchMiddlewares<RequestHandler>(SecurityRulesController.prototype.testSecurityRules)),

            async function SecurityRulesController_testSecurityRules(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSecurityRulesController_testSecurityRules, request, response });

                const controller = new SecurityRulesController();

              await templateService.apiHandler({
                methodName: 'testSecurityRules',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSecurityRulesController_getSecurityRule: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                rule_id: {"in":"path","name":"rule_id","required":true,"dataType":"string"},
        };
        app.get('/api/v1/security-rules/:rule_id',
            authenticateMiddleware([{"session":["view_security_rules"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(SecurityRulesController)),
            ...(fetchMiddlewares<RequestHandler>(SecurityRulesController.prototype.getSecurityRule)),

            async function SecurityRulesController_getSecurityRule(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSecurityRulesController_getSecurityRule, request, response });

                const controller = new SecurityRulesController();

              await templateService.apiHandler({
                methodName: 'getSecurityRule',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSecurityRulesController_updateSecurityRule: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                rule_id: {"in":"path","name":"rule_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"SecurityRulePatchBody"},
        };
        app.patch('/api/v1/security-rules/:rule_id',
            authenticateMiddleware([{"session":["manage_security_rules"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(SecurityRulesController)),
            ...(fetchMiddlewares<RequestHandler>(SecurityRulesController.prototype.updateSecurityRule)),

            async function SecurityRulesController_updateSecurityRule(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSecurityRulesController_updateSecurityRule, request, response });

                const controller = new SecurityRulesController();

              await templateService.apiHandler({
                methodName: 'updateSecurityRule',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSecurityRulesController_deleteSecurityRule: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                rule_id: {"in":"path","name":"rule_id","required":true,"dataType":"string"},
        };
        app.delete('/api/v1/security-rules/:rule_id',
            authenticateMiddleware([{"session":["manage_security_rules"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(SecurityRulesController)),
            ...(fetchMiddlewares<RequestHandler>(SecurityRulesController.prototype.deleteSecurityRule)),

            async function SecurityRulesController_deleteSecurityRule(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSecurityRulesController_deleteSecurityRule, request, response });

                const controller = new SecurityRulesController();

              await templateService.apiHandler({
                methodName: 'deleteSecurityRule',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa


    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

    function authenticateMiddleware(security: TsoaRoute.Security[] = []) {
        return async function runAuthenticationMiddleware(request: any, response: any, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            // keep track of failed auth attempts so we can hand back the most
            // recent one.  This behavior was previously existing so preserving it
            // here
            const failedAttempts: any[] = [];
            const pushAndRethrow = (error: any) => {
                failedAttempts.push(error);
                throw error;
            };

            const secMethodOrPromises: Promise<any>[] = [];
            for (const secMethod of security) {
                if (Object.keys(secMethod).length > 1) {
                    const secMethodAndPromises: Promise<any>[] = [];

                    for (const name in secMethod) {
                        secMethodAndPromises.push(
                            expressAuthenticationRecasted(request, name, secMethod[name], response)
                                .catch(pushAndRethrow)
                        );
                    }

                    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

                    secMethodOrPromises.push(Promise.all(secMethodAndPromises)
                        .then(users => { return users[0]; }));
                } else {
                    for (const name in secMethod) {
                        secMethodOrPromises.push(
                            expressAuthenticationRecasted(request, name, secMethod[name], response)
                                .catch(pushAndRethrow)
                        );
                    }
                }
            }

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            try {
                request['user'] = await Promise.any(secMethodOrPromises);

                // Response was sent in middleware, abort
                if (response.writableEnded) {
                    return;
                }

                next();
            }
            catch(err) {
                // Show most recent error as response
                const error = failedAttempts.pop();
                error.status = error.status || 401;

                // Response was sent in middleware, abort
                if (response.writableEnded) {
                    return;
                }
                next(error);
            }

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        }
    }

    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
}

// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
