// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IWETH {
    function deposit() external payable;
    function withdraw(uint256) external;
    function approve(address, uint256) external returns (bool);
}

/// A CEX-DEX searcher's executor: it holds inventory of both tokens of the pools it trades (its
/// other leg is on the exchange, so a trade gains nothing on chain by itself), runs one swap
/// out of that inventory, and pays the block's builder a fixed amount by a direct transfer to
/// block.coinbase. The swap's own minimum output guards it: if a rival moved the pool first,
/// the swap reverts and the bundle is left out. Only its operators may trade.
contract CexDexExecutor {
    IWETH public immutable weth;
    mapping(address => bool) public isOperator;

    constructor(IWETH weth_, address[] memory operators) payable {
        weth = weth_;
        isOperator[msg.sender] = true;
        for (uint256 i = 0; i < operators.length; i++) isOperator[operators[i]] = true;
        if (msg.value > 0) weth_.deposit{value: msg.value}();
    }

    receive() external payable {}

    modifier onlyOperator() {
        require(isOperator[msg.sender], "not an operator");
        _;
    }

    function approve(address token, address spender) external onlyOperator {
        IWETH(token).approve(spender, type(uint256).max);
    }

    /// Runs `call` on `target` (a router's swap, paid to this contract), then pays the coinbase `payment` wei of its WETH.
    function trade(address target, bytes calldata call, uint256 payment) external onlyOperator {
        (bool ok, bytes memory data) = target.call(call);
        if (!ok) {
            assembly {
                revert(add(data, 32), mload(data))
            }
        }
        if (payment > 0) {
            weth.withdraw(payment);
            block.coinbase.transfer(payment);
        }
    }
}
